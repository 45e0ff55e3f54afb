#pragma once
// The tool a benchmarked command runs, seen through the wrappers whose job is to exec their
// argument: `taskset -c 0 vpr ...` is a run of vpr (pinning is how people benchmark on a shared
// machine), so the verdict, --adopt and the current arm are about vpr, never [tool.taskset].
#include <cstddef>
#include <string>
#include <vector>

namespace bench {

// Pure: the index in `command` of the word that names the tool (0 when the first word is no
// wrapper); command.size() when a wrapper's own words take the rest (nothing left to run), and
// the wrapper's index when what it runs cannot be told from its words (`env -S`, `flock -c`).
std::size_t tool_index(const std::vector<std::string>& command);

// The tool's name (basename of that word), or "" for an empty command.
std::string tool_name(const std::vector<std::string>& command);

// The command from the tool on (the whole command when there is no wrapper).
std::vector<std::string> from_tool(const std::vector<std::string>& command);

}  // namespace bench
