#pragma once
// `edashim bench` and `edashim tune` on a farm: the experiment directory made and submitted
// (--executor slurm|parallel --dir DIR), waited for with a progress line, collected into the
// same BenchResult a local bench gives, and resubmitted round by round.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "bench/spec.hpp"
#include "farm/collect.hpp"
#include "farm/experiment.hpp"
#include "util/owned_file.hpp"

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

// Makes the experiment in f.dir and submits every round. nullopt with `error`.
std::optional<farm::Experiment> start_farm(const bench::Spec& spec, const FarmOptions& f, std::string& error);

// Collects DIR now, or waits (progress on stderr) until no round is pending or running first.
// `interrupted`: Ctrl-C while waiting (the tasks keep running).
farm::Collected collect_farm(const std::string& dir, const farm::Experiment& e, bool wait, bool& interrupted);

// Prints the rounds that are not done, each with its state and why, and what to do about them.
void say_rounds(const std::string& dir, const farm::Collected& c, int rounds, std::ostream& err);

// Resubmits the partial, failed and missing rounds; says what it did. False on an error. Only
// the user's own experiment (e.own), run by this edashim (farm::task_edashim), its executor
// arguments checked again as at submission.
bool resubmit(const std::string& dir, const farm::Experiment& e, const farm::Collected& c, std::ostream& err);

std::string version();

}  // namespace commands
