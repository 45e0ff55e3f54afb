#pragma once
// The run's line in the run log (fields: runlog/schema.hpp), from plain values: what pipeline/
// gathers from the plan and the outcome (pipeline/run_line.hpp) is turned into JSON here only.
// Most of it is written while the tool runs; only what the tool's end gives is added after.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/json_writer.hpp"
#include "util/machine.hpp"

namespace runlog {

// An empty string below is written as null where the schema says "or null".

// The pre-flight verdict on the tool's file (tool/inspect.hpp's Preflight).
struct PreflightFields {
  bool inspected = false;
  std::string error;                    // written only when not inspected
  std::string path;
  std::vector<std::string> scripts;
  std::string binary, kind;             // or null
  bool own_malloc = false;
  std::string linked_allocator, secure_exec;  // or null
  bool glibc_static = false;
  std::optional<bool> preload_reaches;  // null: not inspected
  std::string blocker, reason, note;    // or null
  bool cached = false;
  // The glibc tunables that replace an allocator no preload reaches; absent: null.
  struct Fallback {
    std::string instead_of, options;
    std::string source;                 // or null
    std::optional<std::string> glibc_tunables;
    std::string effect;
  };
  std::optional<Fallback> fallback;
};

// What is known once the tool has started.
struct RunStart {
  double start_time = 0;                // seconds since the epoch: "start" and "start_unix"
  std::string tool, path;
  std::vector<std::string> argv;
  std::string cwd, host;
  int pid = 0, tool_pid = 0;
  std::string run_id, flow, parent_run, profile;  // parent_run, profile: or null
  std::vector<std::string> config_files;
  std::vector<std::string> config_ignored;  // what of an untrusted project file was not applied
  std::vector<std::string> notices;         // what edashim had to tell (pipeline/notices.hpp)
  std::string requested, library, version, build, note, preloaded_by_caller;  // "allocator"; library, build, preloaded_by_caller: or null
  std::vector<std::pair<std::string, std::optional<std::string>>> env_set;  // nullopt: removed
  std::vector<std::pair<std::string, std::string>> env_kept;
  std::string scratch_dir;              // or null
  bool scratch_kept = false;
  std::string scratch_note;
  PreflightFields preflight;
  std::string arm;
  std::string explored, explored_instead_of;  // explored empty: "explore" null
  util::Machine machine;
  std::string signature, signature_text;
};

// One process the probe recorded (run/probe_records.hpp).
struct ProcessFields {
  long pid = 0, ppid = 0;
  std::string exe, malloc_object, provider;
  bool forked = false;
  std::string end;
  std::optional<long> vm_hwm_kb, vm_peak_kb;
};

// What only the tool's end gives, and the probe's evidence. A figure nobody could know (the
// tool ran in edashim's place and died of a signal, or no probe was in it) is null: unknown,
// never a number that is not the tool's.
struct RunEnd {
  std::optional<double> wall_s, user_s, sys_s;
  std::optional<long> max_rss_kb;
  std::optional<int> exit_code, signal;
  std::optional<bool> scratch_left_in_use;  // absent when the run had no scratch
  std::optional<int> status;
  std::optional<std::string> ended;  // key::ended: only for an end nobody told
  std::optional<std::vector<ProcessFields>> processes;  // null: no records (probe off, a flow's top)
  bool allocator_verified = false;
  std::string verification;
  std::optional<std::vector<std::string>> not_applied;  // absent when the probe did not run
};

// Opens the line and writes what is known once the tool has started.
void write_start(util::JsonWriter& j, const RunStart& s);

// Adds what the tool's end gives and closes the line.
void write_end(util::JsonWriter& j, const RunEnd& e);

// The ends of a line nobody could time (times, memory and status null), closing it: the
// configuration's first error (the tool ran plain), the tool exec'd in edashim's place because
// edashim could not start it (only status null), or exec'd for a debugger or tracer to follow.
void end_config_error(util::JsonWriter& j, std::string_view error);
void end_fallback(util::JsonWriter& j, std::string_view why);
void end_traced(util::JsonWriter& j, std::string_view who);

}  // namespace runlog
