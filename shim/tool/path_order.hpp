#pragma once
// Where a shim link stands on PATH relative to the real tool: what `yosys` typed in a shell
// runs now, and whether that goes through edashim. Pure: the caller gathers what is on disk.
#include <string>
#include <vector>

namespace tool {

// One executable of the tool's name on PATH, in PATH order.
struct Found {
  std::string path;
  bool edashim = false;    // a link to (or copy of) an edashim binary
  bool in_shim_dir = false;  // in the shim directory being checked
};

enum class Order {
  Ok,               // the shim comes first and a real tool follows
  NotOnPath,        // the shim directory is not on PATH (or has no link of this name)
  Shadowed,         // a real tool comes before the shim: running the name bypasses edashim
  OtherEdashim,     // another edashim (another install's shim) comes first
  NoRealTool,       // the shim comes first but no real tool follows it
};

struct OrderReport {
  Order order = Order::NotOnPath;
  std::string runs_now;  // what the name runs now (empty: nothing)
  std::string real;      // the real tool edashim would run (empty: none)
};

OrderReport analyse_order(const std::vector<Found>& found);

// Index of `dir` among PATH's entries (-1: absent); `same` decides equality (by inode, say).
template <class Same>
int path_index(const std::vector<std::string>& entries, Same same) {
  for (size_t i = 0; i < entries.size(); ++i)
    if (same(entries[i])) return int(i);
  return -1;
}

// A line that puts `dir` first on PATH once, for the shell named ("bash", "zsh", "fish").
std::string path_line(const std::string& shell, const std::string& dir);

}  // namespace tool
