#pragma once
// `edashim report`: the run log summarised per tool and profile.
#include <functional>
#include <string>
#include <vector>

#include "commands/subcommand.hpp"
#include "report/aggregate.hpp"
#include "util/table.hpp"

namespace commands {

Subcommand add_report_command(CLI::App& app);

// The rows as a table (shared by the text, Markdown and CSV outputs) and as JSON.
util::Table report_table(const std::vector<report::GroupRow>& rows, report::GroupBy by);
std::string report_json(const std::vector<report::GroupRow>& rows, report::GroupBy by);

// What reading a log found: its lines, and those that are not records.
struct ReadStats {
  std::size_t lines = 0, malformed = 0;
};
// Every record of the log, runs and others, parsed, in file order: `each` sees each line that
// parses (the record is reused between calls).
bool scan_log(const std::string& path, const std::function<void(const report::RunRecord&)>& each, ReadStats& st,
              std::string& error);

// The log `edashim run` writes to from here (pipeline::current_log: the config's `log` with
// {host} expanded, EDASHIM_LOG, else the default); "" when logging is off. The configuration's
// errors are said on stderr as `edashim WHO: ...`.
std::string current_log_path(const char* who);

// The run logs a report reads: each --log as named, a directory's *.jsonl and rotated *.jsonl.N
// regular files in name order; or, with none, the current log. What cannot be listed is said
// on stderr and counted; status 2 (nothing is read) when none is named and logging is off.
struct LogSelection {
  std::vector<std::string> files;
  std::size_t unreadable = 0;
  int status = 0;
};
LogSelection select_logs(const std::vector<std::string>& args, const char* who);

// Each file in turn through `each`. A file that cannot be opened or read is not fatal: its
// `error` says why, and the others are still read.
struct LogRead {
  std::string path;
  ReadStats stats;
  std::string error;  // "" when read whole
};
std::vector<LogRead> scan_logs(const std::vector<std::string>& files,
                               const std::function<void(const report::RunRecord&)>& each);

}  // namespace commands
