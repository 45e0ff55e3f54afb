#pragma once
// `edashim bench` and `edashim tune` on a farm: the experiment directory made and submitted
// (--executor slurm|parallel --dir DIR), waited for with a progress line, collected into the
// same BenchResult a local bench gives, and resubmitted round by round.
#include <CLI/CLI.hpp>
#include <string>

#include "bench/spec.hpp"
#include "farm/collect.hpp"
#include "farm/experiment.hpp"
#include "util/owned_file.hpp"
#include "util/result.hpp"
#include "util/voice.hpp"

namespace commands {

struct FarmOptions {
  std::string executor = "local";  // local, slurm, parallel
  std::string dir;                 // the experiment directory (shared storage)
  std::string slurm_args, parallel_args;
  bool wait = false;
};

// --executor, --dir, --slurm-args, --parallel-args, --wait on `cmd` (bench and tune).
void add_farm_options(CLI::App* cmd, FarmOptions& f);

// The experiment directory, absolute.
std::string farm_dir(const FarmOptions& f);


// The options' own consistency and the directory's state, before anything is made: "" when
// fine, else every problem on its own line. `who`: "bench" or "tune".
std::string check_farm_options(const FarmOptions& f, const bench::Spec& spec, const std::string& who);

// Makes the experiment in f.dir and submits every round.
util::Result<farm::Experiment> start_farm(const bench::Spec& spec, const FarmOptions& f);

// Collects DIR now, or waits until no round is pending or running first, its progress said by
// `voice` (redrawn in place on a terminal). `interrupted`: Ctrl-C while waiting (the tasks keep
// running).
farm::Collected collect_farm(const std::string& dir, const farm::Experiment& e, bool wait, bool& interrupted,
                             const util::Voice& voice);

// Says the rounds that are not done, each with its state and why, and what to do about them.
void say_rounds(const std::string& dir, const farm::Collected& c, int rounds, const util::Voice& voice);

// Resubmits the partial, failed and missing rounds: what it did, for the command to say. Only
// the user's own experiment (e.own), run by this edashim (farm::task_edashim), its executor
// arguments checked again as at submission.
util::Result<std::string> resubmit(const std::string& dir, const farm::Experiment& e, const farm::Collected& c);

std::string version();

}  // namespace commands
