#include "runlog/tree_peak.hpp"

#include <algorithm>

namespace runlog {

std::optional<double> TreePeaks::fold(const RunRecord& r) {
  std::optional<double> peak = r.vm_peak_kb;
  if (!r.run_id.empty())
    if (auto it = pending_.find(r.run_id); it != pending_.end()) {
      peak = std::max(peak.value_or(0), it->second);
      pending_.erase(it);
    }
  // A run at the top of its flow has no parent_run.
  if (!r.parent_run.empty() && r.parent_run != r.run_id && peak) {
    double& parent = pending_[r.parent_run];
    parent = std::max(parent, *peak);
  }
  return peak;
}

}  // namespace runlog
