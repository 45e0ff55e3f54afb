#pragma once
// The shared vocabulary of bench and tune: what to measure (Spec), what one run gave (ArmRun), what
// a whole benchmark gave (BenchResult), and what the run pipeline says about an arm before anything
// runs (ArmPreview). bench/ knows nothing of the CLI: the command that drives it passes in a
// Previewer bound to the run pipeline.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "runlog/read.hpp"
#include "util/owned_file.hpp"

namespace bench {

// An arm's profile that is glibc's malloc under the tool's own settings (`edashim run -a system`).
inline constexpr const char* kSystemArm = "system";

// One side of the comparison: a named profile or a profile file.
struct Arm {
  std::string name;     // as shown in tables
  std::string profile;  // passed to `edashim run -p`; "" = no -p (the tool's current choice); kSystemArm: -a system
};

// A benchmark: the arms, the command, and how to run and check it. `edashim tune` measures each
// of its steps with one of these, so the two commands share every option of this struct.
struct Spec {
  std::vector<Arm> arms;
  std::vector<std::string> command;
  int runs = 10;        // measured runs per arm
  int warmup = 1;       // unmeasured runs per arm, interleaved, before the measured ones
  int jobs = 1;         // runs at the same time
  std::vector<std::string> fresh_copy;  // inputs copied into a new directory for every run
  std::string fresh_copy_from;           // "": copied from where they are; else from this directory
                                         // (a farm's snapshot of them, taken at submission)
  std::string on = "disk";               // where those directories are: disk or tmpfs
  bool compare = false;                  // --compare-outputs: hash outputs after every run
  std::vector<std::string> compare_outputs;  // output files hashed after every run
  bool compare_stdout = true;                // also hash stdout (--no-compare-stdout clears it)
  std::string stdout_filter;                 // ECMAScript regex: matching lines left out of stdout's hash
  uint64_t seed = 20261130;                  // run order and bootstrap
  std::string keep_log;  // append the measured runs' log lines here ("" = do not keep)
  util::SharedDirs keep_log_shared;  // the user's shared_dirs, for keep_log's owned-file check
  std::string experiment;                    // names this bench in the lines kept ("bench": {"experiment"})
  // hyperfine's: shell commands (/bin/sh -c) run untimed, in the directory the runs use. setup
  // once before the first run, cleanup once after the last, prepare before every run (warm-ups
  // too; a failed prepare fails that run). A local bench's only: a farm refuses them.
  std::string setup, prepare, cleanup;
  bool progress = true;  // progress bar, when stderr is a terminal
  // bench's, as hyperfine's: stop at the first run that fails (false: -i/--ignore-failure, and
  // tune, which measures every candidate and leaves a failing one out), and copy each run's
  // stdout and stderr to ours once it ended (--show-output).
  bool stop_at_failure = false;
  bool show_output = false;
  // bench --adopt: the file it writes a clear winner into ("" without --adopt), for the summary
  // to say so instead of offering the lines.
  std::string adopt_into;
};

// One run of one arm. The figures are the inner `edashim run`'s own log line, as
// `edashim report` reads it: one record type for both. The machine it ran on is in the record
// (record.host, record.cpu): on a farm, runs of one bench land on different nodes.
struct ArmRun {
  int arm = 0, round = 0, order = 0;  // order: position in the schedule
  bool ok = false;                    // the tool ran and exited 0
  std::string failure;                // why a run is not ok
  runlog::RunRecord record;           // times, peak RSS, status, allocator verification
  std::map<std::string, std::string> hashes;  // output name ("stdout" or a file) -> sha256 / "missing"
  std::string log_line;  // a farm round's run: the tool's log line as the task wrote it ("" locally)
};

// A round of a benchmark run by a farm executor (slurm, parallel): one task, one node. A local
// bench has every round done (or not started, when interrupted) and lists none.
struct RoundState {
  int round = 0;
  std::string state;   // "done", "running", "pending", "partial" (the task ended mid-round),
                       // "failed" (the task could not run it), "missing" (no task ran it)
  std::string detail;  // the scheduler's word ("CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY") and the host
  std::string reason;  // Slurm's reason for a waiting task (Resources, JobHeldUser), "" when none
};

// What a benchmark gave.
struct BenchResult {
  std::vector<ArmRun> runs;               // measured runs only, in schedule order
  std::vector<std::size_t> env_bytes;  // per arm: the tool's environment size after padding
  std::string machine;                 // CPU model, cores, for the record
  int physical_cores = 0;
  bool interrupted = false;
  std::string stopped_at;  // stop_at_failure: the run that failed ("ARM, round N: why"), "" when none
  std::vector<std::string> warnings;
  // Why the measured runs' lines could not all be kept in Spec::keep_log ("" when they were):
  // the runs went on, and the command says it once.
  std::string keep_refused;
  std::vector<RoundState> rounds;  // farm executors only: every round's state, in round order
  // 1-minute load averages just before the first and after the last run, and the logical CPUs
  // (a local bench's; NaN and 0 on a farm, whose nodes' loads are not known here).
  double load_before = std::numeric_limits<double>::quiet_NaN(), load_after = std::numeric_limits<double>::quiet_NaN();
  int logical_cpus = 0;
};

// What `edashim run --strict -p PROFILE -- COMMAND` would do, found out without running it.
struct ArmPreview {
  std::vector<std::string> errors;    // why the run would refuse to start, each with its fix
  std::vector<std::string> warnings;  // it would start, but not as asked (e.g. a library missing)
  std::size_t tool_env_bytes = 0;     // size of the environment the tool would get
  std::string probe_off;              // why the probe would not run (no VmPeak then); "" when it would
};

// Previews one arm: (profile, command, environment the inner edashim starts with).
using Previewer = std::function<ArmPreview(const std::string& profile, const std::vector<std::string>& command,
                                           const std::vector<std::string>& env)>;

}  // namespace bench
