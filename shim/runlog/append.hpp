#pragma once
// The run log: one JSON object per line, appended whole under an exclusive lock so that
// dozens of runs ending at once neither tear nor lose a line.
#include <cstdint>
#include <string>

#include "util/owned_file.hpp"
#include "util/result.hpp"

namespace runlog {

std::string default_path();  // $XDG_STATE_HOME/edashim/runs.jsonl

// How big the log may grow: past max_bytes (0: no limit) it is renamed to PATH.1 (PATH.1 to
// PATH.2, ...), keeping `keep` old files, before the line is written.
struct Limits {
  int64_t max_bytes = 0;
  int64_t keep = 0;
};

// Appends `line` (a newline is added). On failure the reason; the caller warns and the tool's
// result stands. Safe with any number of concurrent writers, rotation included: each line is
// written whole under an exclusive lock on the current file.
// The file is opened under the owned-file rule (util/owned_file.hpp): a log another user planted
// (a link to the user's ~/.bashrc, a file they made world-writable to read every run's argv) is
// refused, unless its directory is one of `shared` (a team's log directory, on purpose).
util::Status append_line(const std::string& path, const std::string& line, const Limits& limits = {},
                         const util::SharedDirs& shared = {});

// A path that names a file of the process opening it (/dev/stderr, /dev/fd/N, /proc/self/...,
// /dev/tty): another process, with descriptors of its own, opens something else. Never rotated.
bool names_own_descriptor(const std::string& path);

}  // namespace runlog
