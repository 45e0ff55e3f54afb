#pragma once
// A run's peak virtual size is its whole tree's: a tool that starts another tool edashim routes
// (ABC under yosys, when ABC has a profile of its own) gives that tool a run and a line of its
// own, with its processes, written before the parent's line (the child ends first). Folded here,
// the parent's figure covers the same processes whether or not a child was routed, as wait4's
// peak RSS does: bench's arms and report's rows compare like with like.
#include <map>
#include <optional>
#include <string>

#include "runlog/read.hpp"

namespace runlog {

// Fed every record of a log in order: returns the record's tree peak, the largest vm_peak_kb
// over itself and the child runs (by parent_run, at any depth) fed before it.
class TreePeaks {
 public:
  std::optional<double> fold(const RunRecord& r);

 private:
  std::map<std::string, double> pending_;  // run_id -> the largest peak of its children so far
};

}  // namespace runlog
