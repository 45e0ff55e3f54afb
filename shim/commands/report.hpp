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

// Reads a log file through the filter into the aggregator; counts unreadable lines.
struct ReadStats {
  std::size_t lines = 0, used = 0, malformed = 0;
};
// Runs only: lines of another kind (a bench's "bench_outputs" record) are passed over.
bool read_log(const std::string& path, const report::Filter& filter, report::Aggregator& agg, ReadStats& st,
              std::string& error);
// Every record of the log, runs and others, parsed, in file order: `each` sees each line that
// parses (the record is reused between calls).
bool scan_log(const std::string& path, const std::function<void(const report::RunRecord&)>& each, ReadStats& st,
              std::string& error);

// The log `edashim run` writes to: $EDASHIM_LOG, else the default; "" when logging is off.
std::string current_log_path();

}  // namespace commands
