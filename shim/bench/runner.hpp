#pragma once
// Carrying out a benchmark: every run is a real `edashim run --strict -p ARM -- CMD`, started
// from /proc/self/exe with its own run log, so what is measured is exactly what users run
// (profile resolution, environment, preload, wait4 figures) and the figures are read back from
// the same log line `edashim report` reads. The cost, one more exec per run, falls outside the
// timed window: the inner edashim times the tool alone. Nothing bench opens reaches the tool:
// runs start with posix_spawn and file actions, and every descriptor is close-on-exec.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/spec.hpp"
#include "util/result.hpp"

namespace bench {

// What checking a Spec found: every arm's tool environment size, and what to warn about.
struct Checked {
  std::vector<std::size_t> tool_env_bytes;  // per arm, before padding
  std::vector<std::string> warnings;
  std::vector<std::string> probe_off;       // per arm: why the probe would not run; "" when it would
};

// Everything that can be known before the first run: the spec's own consistency, the inputs,
// the output filter, and each arm as the run pipeline sees it (`preview`). Fails with every
// problem, one per line, when a run would be refused: nothing has run then.
util::Result<Checked> check(const Spec& spec, const Previewer& preview);

// Checks (as check()), then runs the schedule. Fails when the benchmark cannot start at all;
// nothing has run then.
util::Result<BenchResult> run(const Spec& spec, const Previewer& preview);

// One run of a schedule.
struct Job {
  int arm = 0, round = 0;
  bool warmup = false;
  int index = 0;  // unique within a session: names the run's directories
  int order = 0;  // position in the schedule
};

// The whole schedule of a local bench: warm-up rounds, then the measured rounds, each round
// every arm once in shuffled order (schedule()).
std::vector<Job> jobs_of(const Spec& spec);

// One round of that schedule as a farm task runs it: its own warm-up runs (a node starts cold),
// then the round's measured runs in the order and with the positions jobs_of gives them.
std::vector<Job> round_jobs(const Spec& spec, int round);

// What every run of one benchmark shares, set up once: the command as runs give it, the
// environment without the caller's edashim variables, the padding that gives every arm's tool
// an environment of one size, and the temporary directories (removed with the session). A
// local bench and a farm's round task both run through it, so a run on a node is the same run.
class Session {
 public:
  static util::Result<std::unique_ptr<Session>> open(const Spec& spec, const Checked& checked);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  // Runs one job (thread-safe); `log_line`, when given, receives the inner run's log line.
  ArmRun execute(const Job& job, std::string* log_line = nullptr);
  const std::vector<std::size_t>& env_bytes() const;  // per arm, after padding
  const std::string& work_dir() const;                 // the session's own directory (removed with it)
  // Why a run's lines could not be kept in Spec::keep_log (the first refusal); "" when none was.
  std::string keep_refused() const;
  // Sends `sig` to every run under way (async-signal-safe: a signal handler's). A farm task
  // told to end passes it on, and its runs end now rather than when their tools would have,
  // so the session can remove its directories before the task dies.
  static void signal_runs(int sig) noexcept;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Where a --fresh-copy input lands inside a run's directory: relative paths keep their shape (so
// the command's own relative references still work), absolute ones keep their name. A farm's
// snapshot of the inputs has the same shape, so its tasks copy from there as a local bench does.
std::string copy_target(const std::string& file);

// The inner `edashim run` options that select an arm's profile: {"-p", P}; none for the
// current choice (""); {"-a", "system"} for "system".
std::vector<std::string> selection_args(const std::string& profile);

// Physical cores (distinct package/core pairs), falling back to the logical count.
int physical_cores();

// "AMD EPYC, 2 cores (2 logical), 7.8 GiB RAM, Linux 6.1".
std::string machine_description();

// The interleaved schedule: `rounds` rounds, each holding every arm once in shuffled order.
std::vector<std::pair<int, int>> schedule(int arms, int rounds, uint64_t seed);  // (arm, round)

}  // namespace bench
