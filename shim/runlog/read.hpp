#pragma once
// Reading run-log lines fast: a targeted scanner that extracts the fields reports use and
// skips the rest without building a DOM (a million lines in about a second; nlohmann's DOM
// takes several times longer, see bench/README.md).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace runlog {

// The figures of one run, as runlog/write.cpp writes them (fields: runlog/schema.hpp).
struct RunRecord {
  double start_unix = 0;
  std::string tool;
  std::vector<std::string> argv;
  std::string cwd;
  std::string profile;                 // empty: none
  std::string allocator_requested;     // allocator.requested
  double wall_s = 0, user_s = 0, sys_s = 0;
  double max_rss_kb = 0;
  // The wall time is null: edashim exec'd the tool in its own place (a debugger or valgrind
  // followed it, or it could not start it itself) and nobody was left to measure.
  bool untimed = false;
  // CPU times or peak memory are null (their fields read 0): a tool run in edashim's place that
  // did not tell its end (killed by a signal, nothing of edashim's loaded). Its wall time, status
  // and signal are known: the run counts, its figures do not.
  bool figures_unknown = false;
  // Not empty: the configuration had errors and the tool ran plain, untimed ("config_error":
  // the first error, FILE:LINE:COLUMN: what is wrong).
  std::string config_error;
  // Not empty: the tool's end was not told (key::ended): it ended without a word (killed by a
  // signal, crashed), or nothing of edashim's was loaded in it to tell. Status and figures null.
  std::string ended;
  // What edashim had to tell the user of this run (key::notices); empty in older logs.
  std::vector<std::string> notices;
  // The run's peak virtual size: the largest VmPeak over the processes the probe recorded.
  // Absent when the probe did not run ("processes" null: probe = false, no probe library, a
  // sanitizer) or when no process reported one (each ended by _exit, exec or a signal).
  std::optional<double> vm_peak_kb;
  bool probed = false;                 // "processes" is an array: the probe ran
  std::optional<long> exit_code, signal, status;
  std::optional<bool> allocator_verified;  // absent from older logs
  std::string path;                    // the real tool's canonical path
  // The machine and "same work" fields; absent from older logs (has_machine false, signature and arm empty).
  bool has_machine = false;
  std::string cpu;                     // machine.cpu; empty when null
  std::string host;                    // the machine's name (gethostname); empty in older logs
  std::string signature, arm;
  bool explored = false;               // "explore" is an object, not null
  std::string bench_experiment;        // bench.experiment: a bench's interleaved run; "" otherwise
  // The flow fields; empty in older logs and at the top of a flow (parent_run).
  std::string run_id, flow, parent_run;
  // Not a run: the kind of record ("bench_outputs"), with its lists. Empty for a run.
  std::string record;
  std::vector<std::string> identical_arms, differing_arms;
  // A run counts as successful when the tool exited with status 0.
  bool ok() const { return exit_code && *exit_code == 0 && !signal; }
};

// Parses one line into `out` (reusing its buffers). False for a line that is not a JSON
// object; unknown fields are skipped, missing fields keep their defaults.
bool parse_run_line(std::string_view line, RunRecord& out);

}  // namespace runlog
