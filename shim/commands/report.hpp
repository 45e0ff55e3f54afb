#pragma once
// `edashim report`: the run log summarised per tool and profile.
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <map>
#include <string>
#include <vector>

#include "commands/subcommand.hpp"
#include "report/aggregate.hpp"
#include "report/flow.hpp"
#include "util/owned_file.hpp"
#include "util/result.hpp"
#include "util/table.hpp"
#include "util/voice.hpp"

namespace commands {

Subcommand add_report_command(CLI::App& app);

// The rows as a table (shared by the text, Markdown and CSV outputs; `numbers`: plain numbers,
// as CSV wants, where the text says "100%" and "1.25x") and as JSON.
util::Table report_table(const std::vector<report::GroupRow>& rows, report::GroupBy by, bool numbers = false);
std::string report_json(const std::vector<report::GroupRow>& rows, report::GroupBy by);

// `report --flow`'s per-tool rows as a table, and the whole flow as JSON (`svg_path`: where the
// timeline was written, "" for none).
util::Table flow_table(const report::FlowSummary& f);
std::string flow_json(const report::FlowSummary& f, const std::string& svg_path);

// `j` as indented JSON text that never throws: a log's strings are bytes another program
// wrote, and invalid UTF-8 among them (a raw 0xFF) is written as U+FFFD, not an abort.
std::string json_text(const nlohmann::json& j);

// The directories the user shares on purpose (`shared_dirs` from the shipped, system and user
// files: a project file has no say in it), for reading logs under util::open_owned.
util::SharedDirs user_shared_dirs();

// What reading a log found: its lines, and those that are not records.
struct ReadStats {
  std::size_t lines = 0, malformed = 0;
  std::size_t untimed = 0;  // runs with no times (RunRecord::untimed), passed over: nothing to compare
  // Runs whose end was not told (RunRecord::ended), passed over, counted apart: those that ended
  // without a word (killed by a signal, crashed) and those with nothing of edashim's to tell.
  std::size_t without_a_word = 0, untold = 0;
  // Runs that ran plain for a configuration error (RunRecord::config_error), and the last error.
  std::size_t config_errors = 0;
  std::string last_config_error;
  std::size_t runs_since_config_error = 0;  // runs after the last one of those: the error is fixed
  // What edashim told the runs (RunRecord::notices, kept off their stderr), by text: how many
  // runs were told it, and the last one's start. At most kNoticeTexts texts: a log anyone could
  // have written cannot grow this without end.
  struct Told {
    std::size_t runs = 0;
    double last_unix = 0;
  };
  static constexpr std::size_t kNoticeTexts = 1000;
  std::map<std::string, Told> notices;
};
// What edashim told the runs (ReadStats::notices), the last told first, at most `shown` of them:
// "N runs, last TIME: TEXT", printable; a last line "(and N more)" when there are more.
std::vector<std::string> notice_lines(const ReadStats& st, std::size_t shown);

// Every record of the log, runs and others, parsed, in file order: `each` sees each line that
// parses (the record is reused between calls), counted in `st`. The file is opened under the one
// rule for files edashim reads (util::open_owned): one another user owns or can write is refused,
// the refusal the failure's reason, unless it lies in one of `shared`. A read that fails midway
// leaves in `st` what was read before.
util::Status scan_log(const std::string& path, const util::SharedDirs& shared,
                      const std::function<void(const runlog::RunRecord&)>& each, ReadStats& st);

// The log `edashim run` writes to from here (pipeline::current_log: the config's `log` with
// {host} expanded, EDASHIM_LOG, else the default); "" when logging is off. The configuration's
// errors are said on stderr as `edashim WHO: ...`.
std::string current_log_path(const char* who);

// The run logs a report reads: each --log as named, a directory's *.jsonl and rotated *.jsonl.N
// files in name order (the directory checked under util::check_owned_dir first); or, with
// none, the current log. What cannot be listed or is refused is said by `voice` and counted;
// status 2 (nothing is read) when none is named and logging is off.
struct LogSelection {
  std::vector<std::string> files;
  std::size_t unreadable = 0;
  int status = 0;
};
LogSelection select_logs(const std::vector<std::string>& args, const util::Voice& voice, const util::SharedDirs& shared);

// Each file in turn through `each`. A file that cannot be opened or read is not fatal: its
// `error` says why, and the others are still read.
struct LogRead {
  std::string path;
  ReadStats stats;
  std::string error;  // "" when read whole
};
std::vector<LogRead> scan_logs(const std::vector<std::string>& files, const util::SharedDirs& shared,
                               const std::function<void(const runlog::RunRecord&)>& each);

}  // namespace commands
