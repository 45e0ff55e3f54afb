#pragma once
// The run log: one JSON object per line, appended whole under an exclusive lock so that
// dozens of runs ending at once neither tear nor lose a line.
#include <string>

namespace run {

std::string default_log_path();  // $XDG_STATE_HOME/edashim/runs.jsonl

// Appends `line` (a newline is added). On failure returns false and says why in `error`;
// the caller warns and the tool's result stands.
bool append_log_line(const std::string& path, const std::string& line, std::string& error);

}  // namespace run
