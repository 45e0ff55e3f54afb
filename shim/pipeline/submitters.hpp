#pragma once
// Job submitters (sbatch, srun, salloc, bsub, qsub, qrsh) started inside a run. Their job carries
// the caller's environment to a node (sbatch's default --export=ALL, qsub -V, bsub's default), and
// a run's environment is edashim's: its preloads, whose prefix the node may not mount (ld.so then
// prints an ERROR line in every process of the job), and its markers, which would count the job's
// runs in a flow that has ended, or make every edashim on the node think it runs nested and step
// aside. So a submitter is not a run: the exec hook routes it here by name, and it starts as it
// would directly, with the caller's environment as it was before edashim (run::without_inherited)
// and nothing of edashim's. A job runs through edashim on its node only if the node runs edashim
// (its links on the job's PATH), as a flow of its own. srun and salloc wait for their job:
// EDASHIM_FLOW stays for them, so that the node's runs join the flow that is waiting for them.
#include <string>
#include <string_view>
#include <vector>

namespace pipeline {

// The submitters' names, for the exec hook's list (kToolsVar): "sbatch", "srun", ...
const std::vector<std::string>& job_submitters();

// Pure: whether `tool` is one of them, and whether it waits for its job (srun, salloc).
bool is_job_submitter(std::string_view tool);
bool submitter_waits(std::string_view tool);

// Pure: the environment a submitter gets: `env` without edashim's additions (run::without_inherited),
// without any __EDASHIM_ variable, and, for a submitter that does not wait, without the flow.
std::vector<std::string> submitter_environment(std::string_view tool, const std::vector<std::string>& env);

}  // namespace pipeline
