#pragma once
// Handing rounds to a scheduler and asking it about them: Slurm (sbatch, scontrol, sacct) and
// GNU parallel (started detached, its joblog read back). The system-call side of
// farm/scheduler.hpp; every submission is recorded in DIR/submissions.jsonl, so any later
// `bench collect` (from any machine that sees DIR) knows which job ran which round.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "farm/experiment.hpp"
#include "farm/scheduler.hpp"
#include "util/owned_file.hpp"
#include "util/result.hpp"

namespace farm {

struct Submission {
  int seq = 0;               // 1, 2, ... in DIR's submissions
  std::string executor;      // "slurm" / "parallel"
  std::string job;           // Slurm's array job id; parallel's pid
  long long started = 0;     // parallel: the process's start time (/proc), to tell a reused pid
  double time = 0;           // when it was submitted (seconds since the epoch)
  std::vector<int> rounds;
};

// Submits `rounds`: one Slurm array task or one GNU parallel job per round, each running
// `edashim` (checked by the caller: farm::task_edashim) on the experiment's fingerprint. The
// executor's arguments are checked again here (they may come from experiment.json), and task.sh
// is written anew on every Slurm submission (never one left in DIR by anyone).
util::Result<Submission> submit(const std::string& dir, const Experiment& e, const std::string& edashim,
                                const std::vector<int>& rounds, const util::SharedDirs& shared);

// DIR's submissions, read under the one file rule; a line whose job id is not one
// (valid_job_id) is left out, counted in `dropped` when given.
std::vector<Submission> read_submissions(const std::string& dir, const util::SharedDirs& shared, int* dropped = nullptr);

// What the scheduler says of each submitted round (the latest submission of a round wins).
// `note` says what could not be asked ("sacct: accounting is off") when a state is unknown.
std::map<int, TaskState> task_states(const std::string& dir, const std::vector<Submission>& subs,
                                     const util::SharedDirs& shared, std::string& note);

// The command that cancels what is still queued or running, for messages ("scancel 12"); job
// ids that are not (valid_job_id) are left out of it, never printed into a command.
std::string cancel_hint(const std::vector<Submission>& subs);


}  // namespace farm
