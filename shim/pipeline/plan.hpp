#pragma once
// Everything decided before a tool starts, with the reasons: what `edashim explain` prints and
// what a run carries out. Reads files, starts nothing, changes nothing.
#include <string>
#include <vector>

#include "config/load.hpp"
#include "paths/files.hpp"
#include "pipeline/invocation.hpp"
#include "run/environment.hpp"
#include "run/flow_id.hpp"
#include "tool/inspect.hpp"
#include "tool/resolve.hpp"

namespace pipeline {

// The decisions for one run.
struct Plan {
  Invocation inv;
  config::Loaded loaded;
  tool::Resolution resolution;
  std::string tool_path;           // empty: not found
  std::string allocator;           // as requested
  std::string allocator_library;   // to preload; empty for system or when missing
  std::string allocator_version;
  std::string allocator_build;     // whose: alloc::kBuildEdashim, kBuildLibraryDirs, kBuildSystem, kBuildPath; "" when none
  std::string allocator_note;      // e.g. "library not found; running on the system allocator"
  std::string options_family;
  std::string log_path;            // empty: off; {host} expanded (log_path_of)
  std::string host;                // gethostname, when the log path named {host}; else read for the record
  std::string probe_library;
  std::vector<std::string> unsafe_preloads;  // libraries left out of LD_PRELOAD: their path holds ' ' or ':'
                                             // (run::preload_safe); unsafe_preload_note says what that costs
  std::string hook_library;        // the exec hook (the probe's library), preloaded with anything else
  std::string routed_tools;        // "yosys:yosys-abc:...": the tools the hook routes to their own profile
                                   // (none when a profile or allocator was chosen for the whole tree)
  std::string routed_paths;        // "NAME=PATH" lines: files the hook routes to NAME's profile (same rule)
  std::string scratch_base;        // the user's own base in the tmpfs (run::own_base); empty: no scratch
  std::string scratch_note;
  bool scratch_refused = false;    // that base is another user's or a link: a run says scratch_note on stderr
  tool::Preflight preflight;       // what the tool's file lets a preload do (pipeline/preflight.hpp)
  std::string preloaded_by_caller; // an allocator (or sanitizer) in the caller's own LD_PRELOAD: the
                                   // caller chose it, so edashim adds no allocator or options
  std::string allocator_to_find;   // the allocator the probe must find serving malloc: `allocator`, or the
                                   // family of preloaded_by_caller ("" when it is no allocator edashim knows)
  std::string fallback_library;    // not empty: this allocator could not be preloaded (preflight.reason
                                   // says why) and options_family names the glibc tunables used instead
  std::string fallback_source;     // with fallback_library: where those tunables come from ("[glibc] from
                                   // FILE"; "" when none is configured)
  std::string fallback_effect;     // with fallback_library: what the tunables can do for this tool
  std::string arm;                 // what runs, by learn::arm_name: the allocator preloaded (the caller's, or
                                   // "system") with the options applied to it; "system" when the pre-flight
                                   // left the preload out. The log's "arm"; what bench and exploration compare
  std::string explored;            // not empty: this run explores, with this candidate of explore_profiles
  std::string explored_instead_of; // the arm the run would have run (pipeline/explore.hpp)
  run::FlowIdentity flow;          // this run's id, its flow and parent run (run/flow_id.hpp)
  bool supervise = false;          // the supervising launcher (run_mode); else exec in place
  std::string mode_note;           // which of the two, and why (explain, doctor)
  bool flow_top = false;           // `edashim run -- make`: a command with no profile of its own and no
                                   // allocator runs plain under the hook, its processes unrecorded
};

// What a flow's top run (Plan::flow_top) says instead of a verification, in its log line and in explain.
inline constexpr const char* kFlowTopNote =
    "a flow's top (edashim run -- CMD, no profile of its own, no allocator): runs plain under the exec hook, "
    "its processes unrecorded; the tools it starts have log lines of their own";

// What leaving Plan::unsafe_preloads out costs this run, and the fix: "" when none was left out.
// A run says it once a session; explain and doctor say it every time. Pure.
std::string unsafe_preload_note(const Plan& plan);

// How a run starts its tool: exec in place (edashim becomes the tool; pipeline/finish.hpp)
// unless `supervise` is set. Pure.
struct RunMode {
  bool supervise = false;
  std::string why;
};
RunMode run_mode(const config::Setting<bool>& supervise);

// The steps, in order: profile, tool, allocator, pre-flight, options, destinations.
Plan make_plan(const Invocation& inv, const paths::Files& files, const std::vector<std::string>& env);

// What runs when the configuration is broken: `plan` with no allocator, options or fallback of
// edashim's (the caller's own preload stays), its decided facts (the arm, the allocator to find)
// decided again by make_plan's own steps.
Plan plain_run(const Plan& plan);

// What the settings ask of the tool's environment, as run::build_environment takes it: the
// options of `in.options_family` (another allocator's options do not apply), the locale and [env].
void environment_settings(const config::Settings& s, run::EnvInputs& in);

// Environment for the plan, given a scratch directory (empty for none).
// `probe_file`: where the probe records this run (__EDASHIM_PROBE); empty: the probe stays silent.
run::EnvPlan plan_environment(const Plan& plan, const std::vector<std::string>& env, const std::string& scratch_dir,
                              const std::string& probe_file = "");

// The free space a scratch base must have under these settings, and the rule that says so
// ("scratch_min_free_percent = 10 of RAM") for the note when none has it.
struct ScratchNeed {
  int64_t bytes = 0;
  std::string rule;
};
ScratchNeed scratch_need(const config::Settings& s);

// Where directories of runs that ended without removing them may be (SIGKILLed; scratch left
// to a daemon): the user's own bases in the scratch candidates and the probe's base, each once.
std::vector<std::string> sweep_bases(const Plan& plan);

// Where the run log is under the `log` setting's value: "" for "off", the default for "", and
// every {host} replaced by this machine's name (config/log_path.hpp). The one reader of the
// setting: runs, explain, doctor, report, recommend and bench all come here. `host` is read with
// gethostname only when the value names {host} and `host` is empty, and kept for the caller.
std::string log_path_of(const std::string& log, std::string& host);

// The log a run from the current directory writes to, under the files' top-level settings
// (a [tool.NAME] section's `log` is that tool's: `explain NAME` shows it), EDASHIM_PROFILE and
// EDASHIM_LOG: what `report`, `report --recommend` and `bench` read or append to.
struct CurrentLog {
  std::string path;                       // "" when logging is off
  config::Origin origin;                  // where `log` was set ("built-in" for the default)
  std::vector<config::Problem> problems;  // the configuration's errors (a run would not log then)
};
CurrentLog current_log(const paths::Files& files, const std::vector<std::string>& env);

// Pure: the tool names of a profiles/defaults directory's file names (NAME.toml, not all.toml).
std::vector<std::string> tool_names_of_profiles(const std::vector<std::string>& files);

}  // namespace pipeline
