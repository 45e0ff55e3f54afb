#pragma once
// Carrying out a benchmark: every run is a real `edashim run --strict -p ARM -- CMD`, started
// from /proc/self/exe with its own run log, so what is measured is exactly what users run
// (profile resolution, environment, preload, wait4 figures) and the figures are read back from
// the same log line `edashim report` reads. The cost, one more exec per run, falls outside the
// timed window: the inner edashim times the tool alone.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bench {

// One side of the comparison: a named profile or a profile file.
struct Arm {
  std::string name;     // as shown in tables
  std::string profile;  // passed to `edashim run -p`
};

struct Spec {
  std::vector<Arm> arms;
  std::vector<std::string> command;
  int runs = 10;        // measured runs per arm
  int warmup = 1;       // unmeasured runs per arm, interleaved, before the measured ones
  int jobs = 1;         // runs at the same time
  std::vector<std::string> fresh_copy;  // inputs copied into a new directory for every run
  std::string on = "disk";               // where those directories are: disk or tmpfs
  std::vector<std::string> compare_outputs;  // output files hashed after every run (and stdout)
  bool compare = false;                      // hash stdout and compare_outputs
  uint64_t seed = 20261130;                  // run order and bootstrap
  std::string keep_log;  // append the measured runs' log lines here ("" = do not keep)
  bool progress = true;  // progress bar, when stderr is a terminal
};

struct Run {
  int arm = 0, round = 0, order = 0;  // order: position in the schedule
  bool ok = false;
  std::string failure;  // why a run is not ok
  double wall_s = 0, user_s = 0, sys_s = 0, max_rss_kb = 0, start_unix = 0;
  std::optional<long> exit_code, signal;
  std::optional<bool> verified;
  std::map<std::string, std::string> hashes;  // output name ("stdout" or a file) -> sha256 / "missing"
};

struct Outcome {
  std::vector<Run> runs;            // measured runs only, in schedule order
  std::vector<std::size_t> env_bytes;  // per arm: the tool's environment size after padding
  std::string machine;              // CPU model, cores, for the record
  int physical_cores = 0;
  bool interrupted = false;
  std::vector<std::string> warnings;
};

// Runs the schedule. Returns nullopt with `error` when the benchmark cannot start at all.
std::optional<Outcome> run(const Spec& spec, std::string& error);

// Physical cores (distinct package/core pairs), falling back to the logical count.
int physical_cores();

// "AMD EPYC, 2 cores (2 logical), 7.8 GiB RAM, Linux 6.1".
std::string machine_description();

// The interleaved schedule: `rounds` rounds, each holding every arm once in shuffled order.
std::vector<std::pair<int, int>> schedule(int arms, int rounds, uint64_t seed);  // (arm, round)

}  // namespace bench
