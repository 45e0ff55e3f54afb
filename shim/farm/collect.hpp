#pragma once
// From an experiment directory's round files and the scheduler's word on its tasks to a
// bench::BenchResult the analysis reads as it reads a local bench's: pure, so two collects of the
// same directory give the same answer. Only complete rounds enter the figures (a paired analysis
// needs every arm of a round, and a resubmitted round must not count twice); every other round
// is listed with its state and why.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/spec.hpp"
#include "farm/experiment.hpp"
#include "farm/scheduler.hpp"

namespace farm {

// One round's state from its file (if any) and its task's state (if it was submitted).
bench::RoundState round_state(int round, const RoundFile* file, const TaskState* task);

struct Collected {
  bench::BenchResult outcome;            // runs of complete rounds, in schedule order; rounds: every one
  std::map<std::string, int> count;  // state -> rounds
  std::vector<int> resubmittable;    // partial, failed or missing: what --resubmit submits
  bool finished() const;             // nothing pending or running
};

Collected collect(const Experiment& e, const std::vector<RoundFile>& files, const std::map<int, TaskState>& tasks);

// "10 rounds: 7 done, 1 running, 1 pending, 1 missing".
std::string progress_line(const Collected& c, int rounds);

}  // namespace farm
