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

// The module system of the shell edashim was started from (Environment Modules and Lmod each
// set their variables in the environment they manage), and whether edashim's own module is
// loaded in it. A tool's module prepends its own bin, ahead of edashim's links.
enum class Modules { kNone, kLmod, kEnvironmentModules };
struct ModuleScene {
  Modules system = Modules::kNone;
  bool edashim_loaded = false;  // LOADEDMODULES names edashim (or edashim/VERSION)
};

// From the variables' values (nullptr: unset): LMOD_CMD says Lmod; else MODULES_CMD or
// MODULESHOME says Environment Modules.
ModuleScene module_scene(const char* lmod_cmd, const char* modules_cmd, const char* modules_home, const char* loaded);

// The fix for links shadowed by a directory before them on PATH, as fits the module system:
// under Lmod, edashim's Lua module (its links keep priority over tool modules); under
// Environment Modules, which has no priority, its module (loaded again where loaded: its site
// configuration, install/environment-modules, keeps the links first from the next command on); else,
// or where no module file is installed (`modulefiles` empty), `plain_fix`.
std::string links_first_fix(const ModuleScene& scene, const std::string& modulefiles, const std::string& plain_fix);

// A line that puts `dir` first on PATH once, for the shell named ("bash", "zsh", "fish").
std::string path_line(const std::string& shell, const std::string& dir);

}  // namespace tool
