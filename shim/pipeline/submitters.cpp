#include "pipeline/submitters.hpp"

#include <algorithm>

#include "run/environment.hpp"
#include "run/flow_id.hpp"

namespace pipeline {

const std::vector<std::string>& job_submitters() {
  static const std::vector<std::string> names{"sbatch", "srun", "salloc", "bsub", "qsub", "qrsh"};
  return names;
}

bool is_job_submitter(std::string_view tool) {
  const auto& names = job_submitters();
  return std::find(names.begin(), names.end(), tool) != names.end();
}

bool submitter_waits(std::string_view tool) { return tool == "srun" || tool == "salloc"; }

std::vector<std::string> submitter_environment(std::string_view tool, const std::vector<std::string>& env) {
  std::vector<std::string> out;
  std::string flow = std::string(run::kFlowVar) + "=";
  for (auto& e : run::without_inherited(env)) {
    if (e.rfind("__EDASHIM_", 0) == 0) continue;
    if (!submitter_waits(tool) && e.rfind(flow, 0) == 0) continue;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace pipeline
