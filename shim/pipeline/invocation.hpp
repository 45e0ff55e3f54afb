#pragma once
// How a tool was asked for: the first thing a run knows, before any file is read.
#include <string>
#include <vector>

#include "config/load.hpp"

namespace pipeline {

// A tool run as asked for, by a link's name or by `edashim run`.
struct Invocation {
  std::string tool;                // name to look up on PATH ("yosys")
  std::vector<std::string> argv;   // argv[0] exactly as the user typed it
  std::string explicit_path;       // `edashim run -- ./tool`: this file, no PATH search
  config::Selection chosen;        // profile and allocator from a flag or the environment
  bool strict = false;             // configuration errors stop the run (edashim run --strict)
  bool routed = false;             // sent by the exec hook (probe/hook.c): a run of its own inside a run
  bool via_run = false;            // `edashim run -- CMD`: CMD may be a flow's top (make, a flow script)
};

// Profile and allocator for `inv`: a command-line flag when given, else EDASHIM_PROFILE and
// EDASHIM_ALLOCATOR. One rule for links, `edashim run`, `explain` and `doctor`.
void select_from(Invocation& inv, const std::string& profile_flag = "", const std::string& allocator_flag = "");

// The environment variable edashim uses to mark a process tree it already configured.
inline constexpr const char* kChainVar = "__EDASHIM_CHAIN";
// The file libedashim_probe.so appends its process records to (probe/probe.c); unset, it records
// no process.
inline constexpr const char* kProbeVar = "__EDASHIM_PROBE";
// The same file, for the exec hook's notes on processes it left without edashim's libraries
// (probe/hook.c): set whenever there is a file, also for a flow's top, whose processes go unrecorded.
inline constexpr const char* kNotesVar = "__EDASHIM_NOTES";
// Set by the exec hook (probe/hook.c) when it starts edashim in place of a tool: the tool's path.
inline constexpr const char* kRouteVar = "__EDASHIM_ROUTE";
// For the hook: the shim to route tools through, and the tools (colon-separated names) to route.
inline constexpr const char* kExeVar = "__EDASHIM_EXE";
inline constexpr const char* kToolsVar = "__EDASHIM_TOOLS";
// For the hook: "NAME=PATH" lines, a [tool.NAME] path each (config::Settings::routed_paths).
inline constexpr const char* kPathsVar = "__EDASHIM_PATHS";
// Set by the hook with kRouteVar when it routed by such a path: the tool's name.
inline constexpr const char* kRouteNameVar = "__EDASHIM_ROUTE_NAME";
// The tool a run stands in for, in its environment: its own process starting that tool again
// continues the run (run_tool.cpp: continues_the_run).
inline constexpr const char* kRunToolVar = "__EDASHIM_TOOL";
// Chain length at which a run stops routing and calls it a loop.
inline constexpr size_t kMaxChain = 16;

// The name a run stands in for: the file name of the path the kernel executed (`executed`,
// getauxval(AT_EXECFN)), not argv[0], which the caller may set to anything (`exec -a`,
// subprocess's `executable=`) and which the tool gets unchanged. argv[0] when the kernel gave no
// usable path (none, or a descriptor: fexecve's /dev/fd/N), and when the path executed was a
// script whose `#!` line names the link (`#!/path/shims/yosys -s`): then AT_EXECFN is the script
// and argv[0] the interpreter as the `#!` line wrote it. `is_script` (util::starts_with_hashbang)
// is asked only when the two file names differ, so the usual start reads no file.
std::string invoked_name(const char* executed, const char* argv0, bool (*is_script)(const char*) = nullptr);

// The process's environment as a list.
std::vector<std::string> current_environment();

}  // namespace pipeline
