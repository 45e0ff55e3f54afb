#pragma once
// The run log: one JSON object per line, appended whole under an exclusive lock so that
// dozens of runs ending at once neither tear nor lose a line.
#include <cstdint>
#include <string>

namespace run {

std::string default_log_path();  // $XDG_STATE_HOME/edashim/runs.jsonl

// How big the log may grow: past max_bytes (0: no limit) it is renamed to PATH.1 (PATH.1 to
// PATH.2, ...), keeping `keep` old files, before the line is written.
struct LogLimits {
  int64_t max_bytes = 0;
  int64_t keep = 0;
};

// Appends `line` (a newline is added). On failure returns false and says why in `error`;
// the caller warns and the tool's result stands. Safe with any number of concurrent writers,
// rotation included: each line is written whole under an exclusive lock on the current file.
bool append_log_line(const std::string& path, const std::string& line, std::string& error, const LogLimits& limits = {});

}  // namespace run
