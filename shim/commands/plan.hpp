#pragma once
// Everything decided before a tool starts, with the reasons: what `edashim explain` prints
// and what a run carries out. Reads files, starts nothing, changes nothing.
#include <string>
#include <vector>

#include "config/load.hpp"
#include "run/environment.hpp"
#include "tool/inspect.hpp"
#include "tool/resolve.hpp"

namespace commands {

// Where edashim's files live for this installation and user.
struct Paths {
  std::string shipped_dir;   // <prefix>/share/edashim/profiles
  std::string system_file;   // /etc/edashim/config.toml
  std::string user_file;     // $XDG_CONFIG_HOME/edashim/config.toml
  std::string user_profiles_dir;
  std::string trust_file;    // $XDG_STATE_HOME/edashim/trusted
  std::string probe_library; // <prefix>/lib/edashim/libedashim_probe.so (may be absent)
  static Paths discover();
};

// How the tool was asked for.
struct Invocation {
  std::string tool;                // name to look up on PATH ("yosys")
  std::vector<std::string> argv;   // argv[0] exactly as the user typed it
  std::string explicit_path;       // `edashim run -- ./tool`: this file, no PATH search
  std::string profile, profile_origin;
  std::string allocator, allocator_origin;
  bool strict = false;             // configuration errors stop the run (edashim run --strict)
};

// Profile and allocator for `inv`: a command-line flag when given, else EDASHIM_PROFILE and
// EDASHIM_ALLOCATOR. One rule for links, `edashim run`, `explain` and `doctor`.
void select_from(Invocation& inv, const std::string& profile_flag = "", const std::string& allocator_flag = "");

struct Plan {
  Invocation inv;
  config::Loaded loaded;
  tool::Resolution resolution;
  std::string tool_path;           // empty: not found
  std::string allocator;           // as requested
  std::string allocator_library;   // to preload; empty for system or when missing
  std::string allocator_version;
  std::string allocator_note;      // e.g. "library not found; running on the system allocator"
  std::string options_family;
  std::string log_path;            // empty: off
  std::string probe_library;
  std::string scratch_base;        // empty: no scratch
  std::string scratch_note;
  tool::Preflight preflight;       // what the tool's file lets a preload do (commands/proof.hpp)
  std::string fallback_library;    // not empty: this allocator could not be preloaded (preflight.reason
                                   // says why) and options_family names the glibc tunables used instead
};

// The environment variable edashim uses to mark a process tree it already configured.
inline constexpr const char* kChainVar = "__EDASHIM_CHAIN";
// The file libedashim_probe.so appends its records to (read by probe/probe.c).
inline constexpr const char* kProbeVar = "__EDASHIM_PROBE";

Plan make_plan(const Invocation& inv, const Paths& paths, const std::vector<std::string>& env);

// Environment for the plan, given a scratch directory (empty for none).
// `probe_file`: where the probe records this run (__EDASHIM_PROBE); empty: the probe stays silent.
run::EnvPlan plan_environment(const Plan& plan, const std::vector<std::string>& env, const std::string& scratch_dir,
                              const std::string& probe_file = "");

// The process's environment as a list.
std::vector<std::string> current_environment();

}  // namespace commands
