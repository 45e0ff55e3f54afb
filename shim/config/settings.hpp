#pragma once
// The settings a run uses, each with the place it came from (for `explain` and the log).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "alloc/option_value.hpp"
#include "util/owned_file.hpp"
#include <vector>

namespace config {

// Where a value was set: a file and line, or an environment variable or command-line flag.
struct Origin {
  std::string file;  // or "EDASHIM_ALLOCATOR", "--allocator", "built-in"
  int line = 0;
  std::string str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

// An allocator option as written in TOML; the allocators own its meaning and rendering.
using alloc::OptionValue;

template <class T>
struct Setting {
  T value{};
  Origin origin{"built-in"};
  void set(T v, Origin o) {
    value = std::move(v);
    origin = std::move(o);
  }
};

struct Settings {
  Setting<std::string> allocator{"system"};  // known name, or an absolute library path
  Setting<std::string> locale{""};           // LC_ALL for the tool; empty leaves the user's locale alone
  Setting<bool> scratch{false};              // private tmpfs TMPDIR for the run
  Setting<bool> scratch_override{false};     // scratch = "override": replace a TMPDIR the user set too
  Setting<bool> keep_scratch{false};
  Setting<int64_t> scratch_min_free_mb{0};   // both must hold: this many MiB free on the tmpfs,
  Setting<double> scratch_min_free_percent{10};  // and this share of RAM free (a tmpfs fills RAM)
  Setting<bool> probe{true};
  // true: edashim starts the tool as its child and waits (the supervising launcher, run/launch.hpp)
  // instead of becoming the tool (pipeline/finish.hpp). EDASHIM_SUPERVISE overrides it.
  Setting<bool> supervise{false};
  Setting<std::string> tool_path{""};        // empty: search PATH
  // The `path` of every other tool's [tool.X] section: inside a run, the exec hook routes an exec
  // of that file to X's profile, for tools whose file name is generic.
  std::map<std::string, Setting<std::string>> routed_paths;
  Setting<std::string> log{""};              // empty: the default log; "off": no log
  Setting<int64_t> log_max_bytes{64 << 20};  // log_max_mb: rotate the log past this size; 0: never
  Setting<int64_t> log_keep{3};              // rotated logs kept (runs.jsonl.1 .. .N); 0: none
  // Absolute directories searched for allocator libraries before the built-in ones; a restricted
  // key (it chooses what is preloaded), so only the user's, the system's or a trusted file sets it.
  Setting<std::vector<std::string>> library_dirs{};
  // Absolute directories the user shares with other users on purpose (a team log directory, a
  // farm's experiment storage): there, files and directories owned or writable by others are
  // accepted (util/owned_file.hpp). Read only from the user's own and the system's config:
  // a project file naming a shared directory is ignored, like any key it may not set.
  Setting<std::vector<std::string>> shared_dirs{};
  // Absolute paths of edashim commands a farm task may run besides the running edashim itself
  // (another install of the same version at a path every node shares). Own config only, like
  // shared_dirs: an experiment directory's word is never enough (farm::task_edashim).
  Setting<std::vector<std::string>> farm_edashim{};
  // Exploration: the share of runs that use a candidate profile instead of the
  // current choice, and the candidates (named profiles; "system" is the `baseline` profile).
  // Restricted: a cloned repository must not turn the user's runs into experiments.
  Setting<double> explore{0};
  Setting<std::vector<std::string>> explore_profiles{{"mimalloc", "jemalloc", "tcmalloc", "system"}};
  // Adopting a learned choice (learned.toml), and whether that needs a bench with identical
  // outputs first. Restricted, as they change what runs.
  Setting<bool> adopt{false};
  Setting<bool> adopt_requires_bench{true};
  // family ("mimalloc", "jemalloc", "tcmalloc", "tbbmalloc", "glibc") -> option -> value
  std::map<std::string, std::map<std::string, Setting<OptionValue>>> options;
  // variable -> value; nullopt unsets it
  std::map<std::string, Setting<std::optional<std::string>>> env;
};

// One problem found in configuration, located as precisely as we can.
struct Problem {
  std::string file;
  int line = 0;
  int column = 0;
  std::string message;
  bool error = true;  // false: a warning (the setting is ignored, the run goes on configured)
  std::string str() const;
};

// Where a config file comes from, which decides what it may set: a project file (from the
// directory tree, untrusted until trusted) least, the user's and the system's own files most.
enum class FileKind { shipped, system, user, project, profile };
const char* file_kind_name(FileKind k);  // "shipped", "system", ...: what explain and doctor print

// A config file that was looked at, and what became of it.
struct ConsideredFile {
  std::string path;
  FileKind kind = FileKind::shipped;
  bool used = false;
  std::string note;    // why not used, or what was ignored
};

// The user's shared directories as the owned-file rule takes them, with the words that tell a
// user how to add one (the setting and the file it belongs in: a project file has no say).
inline util::SharedDirs shared_dirs(std::vector<std::string> dirs) {
  return {std::move(dirs), "list it in shared_dirs in your own ~/.config/edashim/config.toml"};
}

}  // namespace config
