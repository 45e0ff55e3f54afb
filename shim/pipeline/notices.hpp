#pragma once
// What edashim has to tell the user of a run: an untrusted project file, an allocator not found,
// a fallback, a log it cannot write. The tool's stderr is the tool's: Tcl's `exec` (yosys's tcl,
// OpenROAD, the vendors' shells) fails on any line there, and a build's log is read for the
// tool's words. So a notice goes into the run's line ("notices": report, explain and doctor show
// it) and onto stderr only when stderr is a terminal, once a session for the same key
// (pipeline/warn_once.hpp). EDASHIM_NOTICES chooses otherwise: "stderr" says them on any stderr
// (a CI job that wants them in its log), "log" never. What a shell would say when the tool cannot
// be started at all (not found, not executable, a loop) is not a notice: it is said always.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipeline {

inline constexpr const char* kNoticesVar = "EDASHIM_NOTICES";

enum class NoticeRoute { terminal, stderr_always, log_only };

// Pure: EDASHIM_NOTICES's value (unset or empty: terminal); nullopt for a word it does not know.
std::optional<NoticeRoute> parse_notice_route(std::string_view value);

// Pure: whether a notice is said on stderr at all (before the once-a-session rule).
bool says_on_stderr(NoticeRoute route, bool stderr_is_terminal);

// Gives the run a notice: kept for its line, said on stderr as the route allows, once a session
// for `key` ("" : the text itself). Notices of one key in one run are all said or none.
void notice(const std::string& text, const std::string& key = "");

// The run's notices so far, in order (one run per edashim process).
const std::vector<std::string>& run_notices();

}  // namespace pipeline
