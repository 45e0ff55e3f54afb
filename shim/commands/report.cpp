#include "commands/report.hpp"
#include "pipeline/finish.hpp"
#include "runlog/schema.hpp"

#include "commands/own_settings.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <iostream>
#include <set>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands/recommend.hpp"
#include "config/load.hpp"
#include "config/trust.hpp"
#include "paths/files.hpp"
#include "pipeline/plan.hpp"
#include "report/flow.hpp"
#include "report/log_files.hpp"
#include "run/flow_id.hpp"
#include "runlog/tree_peak.hpp"
#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"
#include "util/voice.hpp"

namespace commands {
namespace {

const char* by_name(report::GroupBy by) { return report::group_by_name(by); }

// A host or CPU model the record does not name (a log older than the field, a CPU unknown).
constexpr const char* kUnknown = "(unknown)";

const util::Voice voice("edashim report");

// The current log, with the configuration's errors said: with one, runs are not logged at all.
pipeline::CurrentLog current_log_said(const util::Voice& voice) {
  auto cur = pipeline::current_log(paths::Files::discover(), pipeline::current_environment());
  for (const auto& p : cur.problems)
    voice(p.str(), " (runs from here run plain until it is fixed, each logged with its config_error)");
  return cur;
}

std::string share(const std::optional<double>& v) {
  return v ? util::fixed(100 * *v, 0) + "%" : "-";
}

nlohmann::json number_or_null(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

struct Options {
  std::vector<std::string> logs;
  std::string by = "none", format = "text", since, until;
  bool json = false, csv = false, markdown = false;
  report::Filter filter;
  bool recommend = false;
  RecommendOptions rec;
  CLI::Option* flow_option = nullptr;  // given: the flow view; its value "" or "last": the last flow
  std::string flow, svg;
};

// What edashim told the runs of a log (pipeline/notices.hpp: on their stderr only at a terminal).
void say_notices(const LogRead& r) {
  std::string details;
  for (const auto& line : notice_lines(r.stats, 8)) details += "  " + line + "\n";
  if (!details.empty())
    voice.say_with("what edashim told runs in " + util::printable(r.path) +
                       " (kept off the tools' stderr, which is theirs; the last told first):",
                   details);
}

// What reading the logs found wrong, said as the report's (unless `quiet`: a first pass over logs read
// again). Returns {logs read, logs failed}.
std::pair<std::size_t, std::size_t> say_read_problems(const std::vector<LogRead>& reads, std::size_t unreadable,
                                                      bool quiet = false) {
  std::size_t failed = unreadable, read = 0;
  for (const auto& r : reads) {
    if (!r.error.empty()) ++failed;
    if (r.error.empty() || r.stats.lines) ++read;
  }
  if (quiet) return {read, failed};
  for (const auto& r : reads) {
    if (!r.error.empty()) voice(util::printable(r.error), reads.size() > 1 ? " (the other logs still count)" : "");
    if (r.stats.malformed)
      voice(r.stats.malformed, " of ", r.stats.lines, " lines in ", util::printable(r.path), " are not run records and were skipped");
    // Runs that were not what the configuration asked for: counted where nobody can miss them.
    if (std::size_t n = r.stats.config_errors, later = r.stats.runs_since_config_error; n)
      voice(n, " run", n > 1 ? "s" : "", " in ", util::printable(r.path),
            " ran plain because of a configuration error (the last: ", util::printable(r.stats.last_config_error), "); left out. ",
            later ? "Fixed since: " + (later > 1 ? "the " + std::to_string(later) + " runs after it were" : std::string("the run after it was")) +
                        " configured"
                  : std::string("`edashim explain TOOL` shows it now"));
    if (r.stats.without_a_word)
      voice(r.stats.without_a_word, " run", r.stats.without_a_word > 1 ? "s" : "", " in ", util::printable(r.path), " ended ",
            runlog::key::kEndedWithoutWord, ": no status or figures, left out");
    if (r.stats.untold)
      voice(r.stats.untold, " run", r.stats.untold > 1 ? "s" : "", " in ", util::printable(r.path),
            " ran with nothing of edashim's loaded to tell their end (a static tool; probe = false with the system "
            "allocator; a process gone on as a program edashim's library cannot load into): no status or figures, "
            "left out");
    if (r.stats.untimed)
      voice(r.stats.untimed, " runs in ", util::printable(r.path),
            " have no times (a debugger or valgrind followed the tool, or edashim exec'd it in its place) and were left out");
    say_notices(r);
  }
  return {read, failed};
}

// Each --tool no run in the logs has, with the name nearest it among those that do.
void say_unseen_tools(const std::vector<std::string>& asked, const std::set<std::string>& seen) {
  std::vector<std::string> names(seen.begin(), seen.end());
  for (const auto& t : asked) {
    if (seen.count(t)) continue;
    auto near = util::nearest(t, names);
    voice("--tool ", util::printable(t), ": no run of it in the logs read", near ? "; did you mean '" + *near + "'?" : std::string());
  }
}

int run_flow_report(const Options& o);

int run_report(const Options& o) {
  // Runs that ended without a word since the last run finished are counted now, not at the next run.
  pipeline::sweep_runs_left(pipeline::default_sweep_bases(), SIZE_MAX);
  if (o.flow_option && o.flow_option->count()) return run_flow_report(o);
  if (!o.svg.empty()) return voice.fail("--svg goes with --flow", 2);
  if (o.recommend) {
    RecommendOptions r = o.rec;
    r.logs = o.logs;
    r.tools = o.filter.tools;
    r.json = o.json;
    return run_recommend(r);
  }
  if (!o.rec.write.empty()) return voice.fail("--write goes with --recommend", 2);
  report::GroupBy by = report::group_by_named(o.by).value_or(report::GroupBy::none);
  report::Filter filter = o.filter;
  double now = double(std::time(nullptr));
  for (auto [text, slot] : {std::pair{&o.since, &filter.since}, std::pair{&o.until, &filter.until}}) {
    if (text->empty()) continue;
    *slot = report::parse_time(*text, now);
    if (!*slot) return voice.fail("cannot read the time '" + *text + "' (use 2026-11-30, 2026-11-30T14:00, or 90m / 36h / 7d ago)", 2);
  }
  if (!filter.cwd.empty()) filter.cwd = util::real_path(filter.cwd).value_or(filter.cwd);
  const util::SharedDirs shared = user_shared_dirs();
  auto logs = select_logs(o.logs, voice, shared);
  if (logs.status == 2) return 2;
  report::Aggregator agg(by);
  std::set<std::string> tools_seen;  // for a --tool that matches nothing: the name nearest it
  runlog::TreePeaks tree;  // a run's peak VM is its tree's, child runs included (as bench's)
  auto reads = scan_logs(logs.files, shared, [&](const runlog::RunRecord& rec) {
    if (!rec.record.empty()) return;
    tools_seen.insert(rec.tool);
    auto peak = tree.fold(rec);
    if (!filter.accepts(rec)) return;
    if (peak == rec.vm_peak_kb) return agg.add(rec);
    runlog::RunRecord folded = rec;
    folded.vm_peak_kb = peak;
    agg.add(folded);
  });
  auto [read, failed] = say_read_problems(reads, logs.unreadable);
  // Nothing read: no table (it would say "no runs" of logs never seen).
  if (read == 0 && failed) return 1;
  std::string path = logs.files.size() == 1 ? logs.files[0] : std::to_string(read) + " logs";
  auto rows = agg.rows();
  if (o.json) {
    std::cout << report_json(rows, by) << "\n";
  } else {
    auto table = report_table(rows, by, o.csv);
    bool text = !o.csv && !o.markdown;
    if (o.csv) std::cout << util::render_csv(table);
    else if (o.markdown) std::cout << util::render_markdown(table);
    else if (!rows.empty()) std::cout << util::render_text(table);
    // What is said about the rows comes after them in a log of both streams.
    std::cout.flush();
    if (rows.empty() && text) voice("no runs in ", util::printable(path), " match");
    if (rows.empty()) say_unseen_tools(filter.tools, tools_seen);
    if (auto note = report::vm_peak_note(rows); !note.empty()) voice.say(note);
  }
  // Figures from some of the logs only: a script must be able to tell.
  return failed ? 1 : 0;
}

// `report --flow`: the flow named, or the one whose run ended last; a table (or JSON) per tool
// and the SVG timeline.
int run_flow_report(const Options& o) {
  std::string id = o.flow.empty() ? "last" : o.flow;
  if (id != "last" && !run::valid_flow_id(id))
    return voice.fail("--flow " + util::printable(util::shell_quote(id)) +
                          " is not a flow id (1 to 128 of A-Z a-z 0-9 . _ - : + @, as the log's \"flow\" shows it) nor \"last\"",
                      2);
  const util::SharedDirs shared = user_shared_dirs();
  auto logs = select_logs(o.logs, voice, shared);
  if (logs.status == 2) return 2;
  std::string where = logs.files.size() == 1 ? util::printable(logs.files[0]) : std::to_string(logs.files.size()) + " logs";
  if (id == "last") {
    // A first pass for the id: the second then keeps only that flow's runs in memory.
    report::LastFlow last;
    auto reads = scan_logs(logs.files, shared, [&](const runlog::RunRecord& rec) { last.add(rec); });
    // Said once, by the pass below, unless there is none.
    auto [read, failed] = say_read_problems(reads, logs.unreadable, true);
    if (read == 0 && failed) return say_read_problems(reads, logs.unreadable), 1;
    if (last.id().empty())
      return voice.fail("no run in " + where + " names its flow (lines written before edashim logged flows have no \"flow\")");
    id = last.id();
  }
  report::FlowCollector collect(id);
  auto reads = scan_logs(logs.files, shared, [&](const runlog::RunRecord& rec) { collect.add(rec); });
  auto [read, failed] = say_read_problems(reads, logs.unreadable);
  if (read == 0 && failed) return 1;
  auto flow = collect.summary();
  if (flow.runs.empty()) return voice.fail("no runs of the flow " + id + " in " + where);
  std::string svg_path = o.svg.empty() ? report::flow_svg_name(id) : o.svg;
  bool written = util::write_file_atomic(svg_path, report::flow_svg(flow));
  if (int err = errno; !written)
    voice("cannot write the timeline ", util::printable(svg_path), ": ", std::strerror(err), " (name another file with --svg PATH)");
  if (o.json) {
    std::cout << flow_json(flow, written ? svg_path : "") << "\n";
  } else {
    std::cout << "flow " << id << ": " << flow.runs.size() << (flow.runs.size() == 1 ? " run" : " runs") << ", "
              << util::fixed(flow.wall(), 3) << " s from " << util::iso_time_utc(flow.start) << " to "
              << util::iso_time_utc(flow.end) << "\n";
    std::cout << util::render_text(flow_table(flow));
    if (written) std::cout << "timeline: " << util::printable(svg_path) << "\n";
  }
  return failed || !written ? 1 : 0;
}

}  // namespace

std::string current_log_path(const char* who) { return current_log_said(util::Voice(std::string("edashim ") + who)).path; }

util::SharedDirs user_shared_dirs() { return config::shared_dirs(own_settings().shared_dirs.value); }

std::string json_text(const nlohmann::json& j) {
  try {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::exception& e) {  // replace leaves nothing to throw; said, should it ever
    return nlohmann::json{{"error", std::string("edashim: cannot write JSON: ") + e.what()}}.dump();
  }
}

LogSelection select_logs(const std::vector<std::string>& args, const util::Voice& voice, const util::SharedDirs& shared) {
  LogSelection out;
  if (args.empty()) {
    auto cur = current_log_said(voice);
    if (cur.path.empty()) {
      voice("logging is off (log = \"off\" from ", util::printable(cur.origin.str()), "); name a log with --log FILE or --log DIR");
      out.status = 2;
      return out;
    }
    out.files.push_back(cur.path);
    return out;
  }
  for (const auto& arg : args) {
    struct stat st;
    if (::stat(arg.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      out.files.push_back(arg);  // a file as named; if it cannot be read or is refused, reading it says so
      continue;
    }
    // A directory another user can write could hold anything by the time it is read.
    if (auto refused = util::check_owned_dir(arg, shared); !refused) {
      voice.say(util::printable(refused.error()));
      ++out.unreadable;
      continue;
    }
    DIR* dir = ::opendir(arg.c_str());
    if (!dir) {
      int err = errno;
      voice("cannot list the directory ", util::printable(arg), ": ", std::strerror(err));
      ++out.unreadable;
      continue;
    }
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(dir)) names.emplace_back(e->d_name);
    ::closedir(dir);
    std::string base = arg.back() == '/' ? arg : arg + "/";
    std::size_t found = 0;
    for (const auto& name : report::log_file_names(std::move(names))) {
      std::string path = base + name;
      // Regular files, and links: open_owned follows a link only where only the user could
      // have made it, and refuses any other by name (a link planted among the logs is said,
      // not quietly followed). A FIFO, a socket or a directory is not a log: passed over.
      if (::lstat(path.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) continue;
      out.files.push_back(path);
      ++found;
    }
    if (!found) voice("no run logs (*.jsonl, *.jsonl.N) in ", util::printable(arg));
  }
  return out;
}

std::vector<LogRead> scan_logs(const std::vector<std::string>& files, const util::SharedDirs& shared,
                               const std::function<void(const runlog::RunRecord&)>& each) {
  std::vector<LogRead> out;
  for (const auto& f : files) {
    LogRead r;
    r.path = f;
    if (auto read = scan_log(f, shared, each, r.stats); !read) r.error = read.error();
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> notice_lines(const ReadStats& st, std::size_t shown) {
  std::vector<std::pair<std::string, ReadStats::Told>> told(st.notices.begin(), st.notices.end());
  std::sort(told.begin(), told.end(), [](const auto& a, const auto& b) { return a.second.last_unix > b.second.last_unix; });
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < told.size() && i < shown; ++i)
    lines.push_back(std::to_string(told[i].second.runs) + (told[i].second.runs > 1 ? " runs" : " run") + ", last " +
                    util::iso_time_utc(told[i].second.last_unix) + ": " + util::printable(told[i].first));
  if (told.size() > shown) lines.push_back("(and " + std::to_string(told.size() - shown) + " more)");
  return lines;
}

util::Status scan_log(const std::string& path, const util::SharedDirs& shared,
                      const std::function<void(const runlog::RunRecord&)>& each, ReadStats& st) {
  auto file = util::open_owned(path, util::FileUse::read, shared);
  if (!file.ok())
    return util::fail(file.absent ? "cannot open the run log " + path + ": " + std::strerror(ENOENT)
                      : file.refusal.empty() ? "cannot open the run log " + path + ": " + std::strerror(file.errnum)
                                             : file.refusal);
  int fd = file.fd.get();  // closed when `file` goes
  // Large reads and in-place line splitting: no per-line allocation beyond the record's
  // reused buffers.
  std::string buf;
  std::size_t filled = 0;
  const std::size_t chunk = 1 << 20;
  runlog::RunRecord rec;
  for (;;) {
    if (buf.size() < filled + chunk) buf.resize(filled + chunk);
    ssize_t n = ::read(fd, buf.data() + filled, chunk);
    if (n < 0 && errno == EINTR) continue;
    // What was read before stays counted in `st`.
    if (n < 0) return util::fail("cannot read " + path + ": " + std::strerror(errno));
    bool eof = n == 0;
    filled += std::size_t(n);
    std::size_t start = 0;
    for (;;) {
      const char* nl = static_cast<const char*>(std::memchr(buf.data() + start, '\n', filled - start));
      std::size_t stop = nl ? std::size_t(nl - buf.data()) : (eof ? filled : std::string::npos);
      if (stop == std::string::npos || (stop == start && !nl)) break;
      std::string_view line(buf.data() + start, stop - start);
      start = nl ? stop + 1 : filled;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      ++st.lines;
      if (!runlog::parse_run_line(line, rec)) {
        ++st.malformed;
        continue;
      }
      for (const auto& text : rec.notices) {
        auto it = st.notices.find(text);
        if (it == st.notices.end() && st.notices.size() >= ReadStats::kNoticeTexts) continue;
        auto& told = st.notices[text];
        ++told.runs;
        told.last_unix = std::max(told.last_unix, rec.start_unix);
      }
      if (!rec.config_error.empty() && rec.record.empty()) {
        ++st.config_errors;
        st.last_config_error = rec.config_error;
        st.runs_since_config_error = 0;
        continue;
      }
      if (rec.record.empty() && st.config_errors) ++st.runs_since_config_error;
      if (!rec.ended.empty() && rec.record.empty()) {
        ++(rec.ended == runlog::key::kEndedWithoutWord ? st.without_a_word : st.untold);
        continue;
      }
      if (rec.untimed && rec.record.empty()) {
        ++st.untimed;
        continue;
      }
      each(rec);
    }
    // Keep the unfinished last line for the next read.
    std::memmove(buf.data(), buf.data() + start, filled - start);
    filled -= start;
    if (eof) break;
  }
  return util::Ok{};
}

util::Table report_table(const std::vector<report::GroupRow>& rows, report::GroupBy by, bool numbers) {
  util::Table t;
  t.headers = {"tool", "profile", "allocator"};
  if (by != report::GroupBy::none) t.headers.push_back(by_name(by));
  for (const char* h : {"runs", "failed", "killed", "median s", "p5 s", "p95 s", "median RSS MB", "median peak VM MB", "verified", "time ratio"})
    t.headers.push_back(h);
  t.right_aligned.assign(t.headers.size(), true);
  t.right_aligned[0] = t.right_aligned[1] = t.right_aligned[2] = false;
  if (by != report::GroupBy::none) t.right_aligned[3] = false;
  for (const auto& r : rows) {
    // Texts from the log, escaped: a line another program wrote must not drive the terminal.
    std::vector<std::string> cells{util::printable(r.tool), r.profile.empty() ? "(none)" : util::printable(r.profile),
                                   r.arm.empty() ? "-" : util::printable(r.arm)};
    if (by != report::GroupBy::none)
      cells.push_back(r.by.empty() && by != report::GroupBy::cwd ? kUnknown : util::printable(r.by));
    cells.push_back(std::to_string(r.runs));
    cells.push_back(std::to_string(r.failures));
    cells.push_back(std::to_string(r.killed));
    cells.push_back(util::fixed(r.wall.median, 3));
    cells.push_back(util::fixed(r.wall.p5, 3));
    cells.push_back(util::fixed(r.wall.p95, 3));
    cells.push_back(util::fixed(r.median_rss_kb / 1024, 1));
    // For CSV, numbers a spreadsheet reads as numbers: a share as a fraction, a ratio bare, "" unknown.
    const std::string unknown = numbers ? "" : "-";
    cells.push_back(r.median_vm_peak_kb ? util::fixed(*r.median_vm_peak_kb / 1024, 1) : unknown);
    if (numbers) {
      cells.push_back(r.verified_share ? util::fixed(*r.verified_share, 3) : unknown);
      cells.push_back(r.time_ratio ? util::fixed(*r.time_ratio, 4) : unknown);
    } else {
      cells.push_back(share(r.verified_share));
      cells.push_back(r.time_ratio ? util::fixed(*r.time_ratio, 3) + "x" : "-");
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

std::string report_json(const std::vector<report::GroupRow>& rows, report::GroupBy by) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json j;
    j["tool"] = r.tool;
    j["profile"] = r.profile.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.profile);
    if (by != report::GroupBy::none)
      j[by_name(by)] = r.by.empty() && by != report::GroupBy::cwd ? nlohmann::json(nullptr) : nlohmann::json(r.by);
    j["runs"] = r.runs;
    j["allocator"] = r.arm.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.arm);
    j["failures"] = r.failures;
    j["killed"] = r.killed;
    j["wall_s"] = {{"n", r.wall.n},
                   {"mean", number_or_null(r.wall.mean)},
                   {"median", number_or_null(r.wall.median)},
                   {"p5", number_or_null(r.wall.p5)},
                   {"p95", number_or_null(r.wall.p95)}};
    j["median_max_rss_kb"] = number_or_null(r.median_rss_kb);
    // The largest VmPeak over each run's processes, median over the runs; null without the probe.
    j["median_vm_peak_kb"] = r.median_vm_peak_kb ? nlohmann::json(*r.median_vm_peak_kb) : nlohmann::json(nullptr);
    j["verified_share"] = r.verified_share ? nlohmann::json(*r.verified_share) : nlohmann::json(nullptr);
    j["time_ratio_vs_baseline"] = r.time_ratio ? nlohmann::json(*r.time_ratio) : nlohmann::json(nullptr);
    j["time_ratio_commands"] = r.ratio_commands;
    out.push_back(std::move(j));
  }
  return json_text(out);
}

util::Table flow_table(const report::FlowSummary& f) {
  util::Table t;
  t.headers = {"tool", "runs", "failed", "total s", "median s", "share", "allocator", "verified", "peak RSS MB", "peak VM MB"};
  t.right_aligned.assign(t.headers.size(), true);
  t.right_aligned[0] = t.right_aligned[6] = false;
  for (const auto& r : f.tools) {
    std::vector<std::string> allocators;
    for (const auto& a : r.allocators) allocators.push_back(a.empty() ? "(none)" : util::printable(a));
    t.rows.push_back({util::printable(r.tool), std::to_string(r.runs), std::to_string(r.failures), util::fixed(r.total_wall_s, 3),
                      util::fixed(r.median_wall_s, 3), util::fixed(100 * r.share, 0) + "%", util::join(allocators, ", "),
                      share(r.verified_share), util::fixed(r.peak_rss_kb / 1024, 1),
                      r.peak_vm_kb ? util::fixed(*r.peak_vm_kb / 1024, 1) : "-"});
  }
  return t;
}

std::string flow_json(const report::FlowSummary& f, const std::string& svg_path) {
  nlohmann::json out;
  out["flow"] = f.flow;
  out["start_unix"] = f.start;
  out["end_unix"] = f.end;
  out["wall_s"] = f.wall();
  out["svg"] = svg_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(svg_path);
  auto& tools = out["tools"] = nlohmann::json::array();
  for (const auto& r : f.tools)
    tools.push_back({{"tool", r.tool}, {"runs", r.runs}, {"failures", r.failures}, {"total_wall_s", r.total_wall_s},
                     {"median_wall_s", r.median_wall_s}, {"share", r.share}, {"allocators", r.allocators},
                     {"verified_share", r.verified_share ? nlohmann::json(*r.verified_share) : nlohmann::json(nullptr)},
                     {"peak_max_rss_kb", r.peak_rss_kb},
                     {"peak_vm_peak_kb", r.peak_vm_kb ? nlohmann::json(*r.peak_vm_kb) : nlohmann::json(nullptr)}});
  auto& runs = out["runs"] = nlohmann::json::array();
  for (const auto& r : f.runs)
    runs.push_back({{"run_id", r.run_id}, {"parent_run", r.parent_run.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.parent_run)},
                    {"tool", r.tool}, {"command", r.command}, {"allocator", r.allocator}, {"start_unix", r.start},
                    {"wall_s", r.wall}, {"ok", r.ok},
                    {"allocator_verified", r.verified ? nlohmann::json(*r.verified) : nlohmann::json(nullptr)}});
  return json_text(out);
}

Subcommand add_report_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("report", "Summarise the run log per tool and profile: times, peak memory, time ratio to baseline");
  cmd->add_option("--log", o->logs,
                  "Run log to read, repeatable; a directory: its *.jsonl and rotated *.jsonl.N files, in name order "
                  "(default: the log runs from here write to, as `edashim explain TOOL` shows it)");
  cmd->add_option("--by", o->by, "Also group by the working directory, the whole command, the host or the CPU model")
      ->check(CLI::IsMember({"none", "cwd", "command", "host", "cpu"}));
  cmd->add_option("--tool", o->filter.tools, "Only this tool (repeatable)");
  cmd->add_option("--since", o->since, "Only runs started at or after: 2026-11-30, 2026-11-30T14:00 (UTC), or 7d / 36h / 90m ago");
  cmd->add_option("--until", o->until, "Only runs started before (same forms)");
  cmd->add_option("--cwd", o->filter.cwd, "Only runs in this directory or below it");
  auto* j = cmd->add_flag("--json", o->json, "JSON array of rows");
  auto* c = cmd->add_flag("--csv", o->csv, "CSV");
  auto* m = cmd->add_flag("--markdown", o->markdown, "Markdown table");
  cmd->add_flag("--recommend", o->recommend,
                 "Per tool and CPU model: which arm beats the current choice, on what evidence (see below); "
                 "with adopt = true, also updates the learned choices");
  cmd->add_option("--write", o->rec.write,
                  "With --recommend: add the recommended settings to this TOML file (merged; a key you set "
                  "otherwise is never changed)");
  cmd->add_option("--rss-budget", o->rec.rss_budget, "With --recommend: the largest peak-RSS ratio accepted (default 1.10)");
  o->flow_option = cmd->add_option("--flow", o->flow,
                                   "The runs of one flow (a tree of runs under one edashim run, or one EDASHIM_FLOW): per "
                                   "tool, runs, total and median wall, share of the flow's time, allocator, verified, peak "
                                   "memory; and an SVG timeline. ID as the log's \"flow\" shows it; bare or \"last\": the "
                                   "flow whose run ended last")
                       ->expected(0, 1);
  cmd->add_option("--svg", o->svg, "With --flow: write the timeline here (default: flow-ID.svg in the current directory)");
  o->flow_option->excludes(c)->excludes(m);
  for (const char* other : {"--by", "--tool", "--since", "--until", "--cwd", "--recommend", "--write", "--rss-budget"})
    o->flow_option->excludes(other);
  j->excludes(c)->excludes(m);
  c->excludes(m);
  cmd->footer(
      "Rows: per tool, profile and allocator (what the runs ran: plain runs of each allocator apart).\n"
      "Columns: runs (all), failed (nonzero exit), killed (ended by a signal; not the tool's failure); both left\n"
      "out of the figures; median/p5/p95 wall\n"
      "seconds (percentiles by linear interpolation, as numpy), median peak RSS, median peak virtual\n"
      "size (each run's largest VmPeak over its processes, from the probe; \"-\" without it), share of runs whose\n"
      "allocator was verified, and time ratio = this median / the reference's (below 1: faster; every ratio edashim\n"
      "shows reads this way), the geometric mean over the\n"
      "commands (same argv) run under both this row and the reference: `baseline` or any system-allocator run.\n"
      "Examples:\n"
      "  edashim report                                  everything in the log\n"
      "  edashim report --tool yosys --since 7d          yosys runs of the last week\n"
      "  edashim report --by command --markdown          one row per command, for a README\n"
      "  edashim report --cwd ~/chip --json | jq .       one project, machine-readable\n"
      "  edashim report --log /shared/edashim-logs --by host   a farm's per-host logs, a row per host\n"
      "  edashim report --recommend --tool yosys         is another allocator faster for yosys here?\n"
      "  edashim report --flow                           the last flow: where its time went, and flow-ID.svg\n"
      "  EDASHIM_FLOW=nightly-42 make; edashim report --flow nightly-42 --json   a flow named by a CI job\n"
      "--recommend compares, per tool and CPU model, each arm (allocator and options) with the current\n"
      "choice over the command signatures both ran, and recommends one only when p < 0.01 (van Elteren,\n"
      "one-sided), the 95% CI of the median ratio ends below 0.97, peak RSS is within the budget, it\n"
      "failed no more often on any signature, and each arm has >= 10 runs over >= 3 signatures.\n"
      "--flow counts every run of the flow in its times, failed ones too; share = a tool's total wall over the flow's\n"
      "(first start to last end): runs nest (make's run holds yosys') and overlap (make -j), so shares need not add to 100%.");
  return {cmd, [o] { return run_report(*o); }};
}

}  // namespace commands
