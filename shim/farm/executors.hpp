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

namespace farm {

struct Submission {
  int seq = 0;               // 1, 2, ... in DIR's submissions
  std::string executor;      // "slurm" / "parallel"
  std::string job;           // Slurm's array job id; parallel's pid
  long long started = 0;     // parallel: the process's start time (/proc), to tell a reused pid
  double time = 0;           // when it was submitted (seconds since the epoch)
  std::vector<int> rounds;
};

// Submits `rounds`: one Slurm array task or one GNU parallel job per round.
std::optional<Submission> submit(const std::string& dir, const Experiment& e, const std::vector<int>& rounds,
                                 std::string& error);

std::vector<Submission> read_submissions(const std::string& dir);

// What the scheduler says of each submitted round (the latest submission of a round wins).
// `note` says what could not be asked ("sacct: accounting is off") when a state is unknown.
std::map<int, TaskState> task_states(const std::string& dir, const std::vector<Submission>& subs, std::string& note);

// The command that cancels what is still queued or running, for messages ("scancel 12").
std::string cancel_hint(const std::vector<Submission>& subs);

}  // namespace farm
