#pragma once
// The `log` setting's one placeholder, {host}: per-host log files in a shared directory
// (log = "/shared/edashim-logs/{host}.jsonl"), the layout that needs no lock across machines.
// Pure: the caller passes the host name (gethostname, once, and only when the value names it).
#include <string>
#include <string_view>

namespace config {

inline constexpr std::string_view kHostPlaceholder = "{host}";

// What is wrong with the braces of a `log` value ("" when nothing): a placeholder other than
// {host} ("{user}"), or a brace that opens or closes none. `setting` names it in the message
// ("'log'", "EDASHIM_LOG"); the caller adds where it was set.
std::string log_placeholder_problem(std::string_view value, std::string_view setting = "'log'");

// Whether the value holds {host} (a run calls gethostname only then).
bool names_host(std::string_view value);

// A host name as one safe path component: every character outside [A-Za-z0-9._-] becomes '_',
// and a '.' that starts the name or follows another '.' becomes '_', so that no name (".", "..",
// "a/../b", "") can climb out of the directory or hide the file; an empty name is "unknown-host".
std::string safe_host_name(std::string_view raw);

// Why no run can keep a log at `path` whatever its permissions ("" when nothing says so from the
// path alone): under /proc or /sys the kernel owns every name, and creating a file there fails.
std::string log_path_impossible(std::string_view path);

// `value` with each {host} replaced by safe_host_name(host).
std::string expand_log_path(std::string_view value, std::string_view host);

}  // namespace config
