#pragma once
// Which flow a run belongs to: every run has an id of its own; the first
// edashim run of a process tree starts a flow and passes its flow id and its own run id down
// through the tool's environment, so that a run below it (a routed tool, a link called from a
// Makefile the tool ran) logs the same flow and names its parent. Pure but for new_run_id.
#include <string>
#include <string_view>
#include <vector>

namespace run {

// The flow's id: set by a parent run, or by the user (a CI job naming its flow).
inline constexpr const char* kFlowVar = "EDASHIM_FLOW";
// The run id of the edashim run whose tool this process descends from.
inline constexpr const char* kParentRunVar = "__EDASHIM_PARENT_RUN";

// A flow or run id as edashim accepts one from an environment or a log: 1 to 128 of
// A-Z a-z 0-9 . _ - : + @ (safe in a file name, a terminal and a table cell).
bool valid_flow_id(std::string_view id);

// The run's place in its flow.
struct FlowIdentity {
  std::string run_id;      // this run's
  std::string flow;        // never empty: inherited, the user's, or this run's own id
  std::string parent_run;  // "" at the top of a flow
  std::string note;        // not empty: an EDASHIM_FLOW that is not an id, to say on stderr
};

// From the caller's environment and a fresh `run_id`. The parent counts only together with the
// flow it was passed down with: without a valid EDASHIM_FLOW this run starts the flow.
FlowIdentity flow_identity(const std::vector<std::string>& env, std::string run_id);

// 16 hex digits of getrandom(2); should that fail, of the time, pid and a counter mixed.
std::string new_run_id();

}  // namespace run
