// edashim report: log-line scanning, grouping, time ratio to baseline, filters, formats.
// Expected figures are worked out by hand in the comments, not taken from our output.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "commands/report.hpp"
#include "report/aggregate.hpp"
#include "report/log_files.hpp"
#include "runlog/read.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"
#include "util/table.hpp"

using Catch::Matchers::WithinRel;

namespace {

std::string line(const std::string& tool, const char* profile, const std::string& arg, const std::string& cwd, double wall,
                 double rss, const char* exit_code, double start = 1796000000, const char* verified = nullptr) {
  nlohmann::json j;
  j["v"] = 1;
  j["start_unix"] = start;
  j["tool"] = tool;
  j["argv"] = {tool, arg};
  j["cwd"] = cwd;
  j["profile"] = profile ? nlohmann::json(profile) : nlohmann::json(nullptr);
  j["allocator"] = {{"requested", "system"}, {"library", nullptr}};
  j["env_set"] = {{"LD_PRELOAD", "/x.so"}};
  j["wall_s"] = wall;
  j["max_rss_kb"] = rss;
  j["exit_code"] = nlohmann::json::parse(exit_code);
  j["signal"] = nullptr;
  if (verified) j["allocator_verified"] = nlohmann::json::parse(verified);
  return j.dump();
}

std::vector<report::GroupRow> aggregate(const std::vector<std::string>& lines, report::GroupBy by,
                                        const report::Filter& filter = {}) {
  report::Aggregator agg(by);
  runlog::RunRecord r;
  for (const auto& l : lines) {
    REQUIRE(runlog::parse_run_line(l, r));
    if (filter.accepts(r)) agg.add(r);
  }
  return agg.rows();
}

}  // namespace

TEST_CASE("Report: the line scanner reads the fields and skips nested ones", "[report]") {
  std::string l = R"({"allocator":{"library":"/l/libjemalloc.so.2","requested":"jemalloc","version":"5.3"},)"
                  R"("allocator_verified":true,"argv":["yosys","-p","read_verilog \"a b.v\"; synth\u00e9"],)"
                  R"("config_files":["/a","/b"],"cwd":"/w/\u2603","env_set":{"X":null,"Y":"{[\"]}"},"exit_code":null,)"
                  R"("max_rss_kb":123456,"processes":[{"pid":1,"argv":["sh","-c"]}],"profile":null,"signal":9,)"
                  R"("start_unix":1796033926.2351584,"status":137,"sys_s":0.5,"tool":"yosys","user_s":1.25e0,"wall_s":2.5})";
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(l, r));
  CHECK(r.tool == "yosys");
  REQUIRE(r.argv.size() == 3);
  CHECK(r.argv[2] == "read_verilog \"a b.v\"; synth\xc3\xa9");
  CHECK(r.cwd == "/w/\xe2\x98\x83");
  CHECK(r.profile.empty());
  CHECK(r.allocator_requested == "jemalloc");
  CHECK(r.allocator_verified == std::optional<bool>(true));
  CHECK(r.max_rss_kb == 123456);
  CHECK(r.wall_s == 2.5);
  CHECK(r.user_s == 1.25);
  CHECK(r.start_unix == 1796033926.2351584);
  CHECK_FALSE(r.exit_code.has_value());
  CHECK(r.signal == std::optional<long>(9));
  CHECK_FALSE(r.ok());
  CHECK_FALSE(runlog::parse_run_line("not json", r));
  CHECK_FALSE(runlog::parse_run_line(R"({"tool":"yosys","wall_s":)", r));  // a torn line
}

// The run's peak virtual size is the largest VmPeak over the processes the probe recorded
// (runlog/write.cpp writes one object per process); without the probe, "processes" is null.
TEST_CASE("Report: the line scanner takes the largest VmPeak over the processes, absent without the probe", "[report]") {
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(
      R"({"tool":"yosys","processes":[{"pid":1,"exe":"/usr/bin/yosys","vm_hwm_kb":900,"vm_peak_kb":5000},)"
      R"({"pid":2,"exe":"/usr/bin/yosys-abc","argv":["a",{"b":[1]}],"vm_hwm_kb":100,"vm_peak_kb":7000.5},)"
      R"({"pid":3,"vm_hwm_kb":null,"vm_peak_kb":null}],"max_rss_kb":900,"exit_code":0})",
      r));
  CHECK(r.probed);
  REQUIRE(r.vm_peak_kb.has_value());
  CHECK(*r.vm_peak_kb == 7000.5);
  CHECK(r.max_rss_kb == 900);  // the fields after "processes" are still read
  CHECK(r.ok());
  // Probe off: null. Older logs: no field. An empty list, or processes that reported nothing.
  REQUIRE(runlog::parse_run_line(R"({"tool":"yosys","processes":null,"max_rss_kb":5,"exit_code":0})", r));
  CHECK_FALSE(r.probed);
  CHECK_FALSE(r.vm_peak_kb.has_value());
  CHECK(r.max_rss_kb == 5);
  REQUIRE(runlog::parse_run_line(R"({"tool":"yosys","exit_code":0})", r));
  CHECK_FALSE(r.probed);
  CHECK_FALSE(r.vm_peak_kb.has_value());
  REQUIRE(runlog::parse_run_line(R"({"processes":[],"exit_code":0})", r));
  CHECK(r.probed);
  CHECK_FALSE(r.vm_peak_kb.has_value());
  REQUIRE(runlog::parse_run_line(R"({"processes":[{"pid":4,"vm_peak_kb":null}],"exit_code":0})", r));
  CHECK(r.probed);
  CHECK_FALSE(r.vm_peak_kb.has_value());
  CHECK_FALSE(runlog::parse_run_line(R"({"processes":[{"vm_peak_kb":12)", r));  // a torn line
}

TEST_CASE("Report: a median peak virtual size column beside median RSS, \"-\" and a reason without the probe", "[report]") {
  auto with_vm = [](std::string l, const char* processes) {
    auto j = nlohmann::json::parse(l);
    j["processes"] = nlohmann::json::parse(processes);
    return j.dump();
  };
  auto rows = aggregate({with_vm(line("yosys", "baseline", "a.ys", "/w", 10, 1000, "0"),
                                 R"([{"vm_peak_kb":2048},{"vm_peak_kb":4096}])"),
                         with_vm(line("yosys", "baseline", "a.ys", "/w", 10, 1000, "0"), R"([{"vm_peak_kb":6144}])"),
                         with_vm(line("yosys", "baseline", "a.ys", "/w", 10, 1000, "0"), R"([{"vm_peak_kb":8192}])"),
                         with_vm(line("yosys", "jemalloc", "a.ys", "/w", 8, 1000, "0"), "null")},
                        report::GroupBy::none);
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0].median_vm_peak_kb.has_value());
  CHECK(*rows[0].median_vm_peak_kb == 6144);  // of 4096, 6144, 8192
  CHECK_FALSE(rows[1].median_vm_peak_kb.has_value());
  CHECK(rows[1].unprobed_runs == 1);
  auto text = util::render_text(commands::report_table(rows, report::GroupBy::none));
  CHECK(text.find("median peak VM MB") != std::string::npos);
  CHECK(text.find("6.0") != std::string::npos);
  auto j = nlohmann::json::parse(commands::report_json(rows, report::GroupBy::none));
  CHECK(j[0]["median_vm_peak_kb"] == 6144.0);
  CHECK(j[1]["median_vm_peak_kb"].is_null());
  auto note = report::vm_peak_note(rows);
  CHECK(note.find("in 1 row") != std::string::npos);
  CHECK(note.find("the probe was off for 1 of their runs") != std::string::npos);
  CHECK(report::vm_peak_note({rows[0]}).empty());
}

TEST_CASE("Report: groups per tool and profile, counts and excludes failures, gives the time ratio per command", "[report]") {
  std::vector<std::string> log{
      // baseline, command A: 10, 12, 14 -> median 12; command B: 4 -> median 4
      line("yosys", "baseline", "A", "/p", 10, 1000, "0"), line("yosys", "baseline", "A", "/p", 12, 1100, "0"),
      line("yosys", "baseline", "A", "/p", 14, 1200, "0"), line("yosys", "baseline", "B", "/q", 4, 500, "0"),
      // jemalloc, command A: 6, 8 -> median 7, plus a failure (excluded); B: 2 -> 2
      line("yosys", "jemalloc", "A", "/p", 6, 1300, "0", 1796000000, "true"),
      line("yosys", "jemalloc", "A", "/p", 8, 1400, "0", 1796000000, "false"),
      line("yosys", "jemalloc", "A", "/p", 99, 9999, "1"), line("yosys", "jemalloc", "B", "/q", 2, 600, "0"),
      // a profile never compared with baseline
      line("yosys", "mimalloc", "C", "/p", 5, 700, "0"),
      // another tool, no profile
      line("vpr", nullptr, "x", "/p", 3, 300, "0")};
  auto rows = aggregate(log, report::GroupBy::none);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].tool == "vpr");
  CHECK(rows[0].profile.empty());
  const auto& base = rows[1];
  CHECK(base.profile == "baseline");  // baseline first within a tool
  CHECK(base.runs == 4);
  // all successful baseline walls: 4, 10, 12, 14 -> median 11, p5 = 4 + 0.15*6 = 4.9, p95 = 12 + 0.85*2 = 13.7
  CHECK_THAT(base.wall.median, WithinRel(11.0, 1e-12));
  CHECK_THAT(base.wall.p5, WithinRel(4.9, 1e-12));
  CHECK_THAT(base.wall.p95, WithinRel(13.7, 1e-12));
  CHECK_THAT(base.median_rss_kb, WithinRel(1050.0, 1e-12));
  CHECK(base.time_ratio == std::optional<double>(1.0));
  CHECK_FALSE(base.verified_share.has_value());
  const auto& je = rows[2];
  CHECK(je.profile == "jemalloc");
  CHECK(je.runs == 4);
  CHECK(je.failures == 1);
  CHECK(je.wall.n == 3);                                  // 2, 6, 8
  CHECK_THAT(je.wall.median, WithinRel(6.0, 1e-12));
  CHECK_THAT(je.median_rss_kb, WithinRel(1300.0, 1e-12));  // 600, 1300, 1400
  REQUIRE(je.verified_share.has_value());
  CHECK_THAT(*je.verified_share, WithinRel(0.5, 1e-12));
  // per command: A 12/7, B 4/2 -> geometric mean sqrt(12/7 * 2)
  REQUIRE(je.time_ratio.has_value());
  CHECK_THAT(*je.time_ratio, WithinRel(1 / std::sqrt(12.0 / 7.0 * 2.0), 1e-12));
  CHECK(je.ratio_commands == 2);
  CHECK(rows[3].profile == "mimalloc");
  CHECK_FALSE(rows[3].time_ratio.has_value());
}

TEST_CASE("Report: --by cwd splits rows and compares within a directory", "[report]") {
  std::vector<std::string> log{line("yosys", "baseline", "A", "/p", 10, 1, "0"), line("yosys", "baseline", "A", "/q", 20, 1, "0"),
                               line("yosys", "jemalloc", "A", "/p", 5, 1, "0")};
  auto rows = aggregate(log, report::GroupBy::cwd);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].by == "/p");
  CHECK(rows[1].by == "/p");
  CHECK(rows[1].profile == "jemalloc");
  CHECK_THAT(*rows[1].time_ratio, WithinRel(0.5, 1e-12));  // 5 / 10, not 5 / 20
  CHECK(rows[2].by == "/q");
}

TEST_CASE("Report: filters on tool, time range and directory", "[report]") {
  std::vector<std::string> log{line("yosys", "baseline", "A", "/p/sub", 1, 1, "0", 100),
                               line("yosys", "baseline", "A", "/pq", 2, 1, "0", 200),
                               line("vpr", "baseline", "A", "/p", 3, 1, "0", 300)};
  report::Filter f;
  f.cwd = "/p/";
  auto rows = aggregate(log, report::GroupBy::none, f);  // /p/sub and /p, not /pq
  REQUIRE(rows.size() == 2);
  f = {};
  f.tools = {"yosys"};
  f.since = 150;
  rows = aggregate(log, report::GroupBy::none, f);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].wall.median == 2);
  f.until = 200;  // exclusive
  CHECK(aggregate(log, report::GroupBy::none, f).empty());
  CHECK(report::parse_time("2026-11-30", 0) == std::optional<double>(1795996800));  // date -u -d 2026-11-30 +%s
  CHECK(report::parse_time("2026-11-30T01:00", 0) == std::optional<double>(1796000400));  // date -u -d 2026-11-30T01:00 +%s
  CHECK(report::parse_time("2h", 10000) == std::optional<double>(2800));
  CHECK_FALSE(report::parse_time("yesterday", 0).has_value());
}

TEST_CASE("Report: CSV, Markdown and JSON renderings", "[report]") {
  std::vector<std::string> log{line("yosys", "baseline", "A", "/p", 2, 2048, "0"), line("yosys", "a,b\"c", "A", "/p", 1, 1024, "0")};
  auto rows = aggregate(log, report::GroupBy::none);
  auto table = commands::report_table(rows, report::GroupBy::none);
  std::string csv = util::render_csv(table);
  CHECK(csv.substr(0, csv.find('\n')) == "tool,profile,allocator,runs,failed,killed,median s,p5 s,p95 s,median RSS MB,median peak VM MB,verified,time ratio");
  CHECK(csv.find("yosys,\"a,b\"\"c\",-,1,0,0,1.000,1.000,1.000,1.0,-,-,0.500x\n") != std::string::npos);  // no probe: no peak VM
  std::string md = util::render_markdown(table);
  CHECK(md.find("| tool | profile | allocator | runs |") == 0);
  CHECK(md.find("|---|---|---:|") != std::string::npos);
  CHECK(md.find("| yosys | baseline | - | 1 | 0 | 0 | 2.000 |") != std::string::npos);
  auto j = nlohmann::json::parse(commands::report_json(rows, report::GroupBy::none));
  REQUIRE(j.size() == 2);
  CHECK(j[1]["profile"] == "a,b\"c");
  CHECK(j[1]["wall_s"]["median"] == 1.0);
  CHECK(j[1]["time_ratio_vs_baseline"] == 0.5);
  CHECK(j[0]["median_max_rss_kb"] == 2048.0);
  CHECK(j[0]["verified_share"].is_null());
  std::string text = util::render_text(table);
  CHECK(text.find("time ratio\n") != std::string::npos);  // no trailing spaces
}

namespace {
// A run line of a farm's log: the host and CPU model it ran on (null for "unknown").
std::string farm_line(const char* host, const char* cpu, const char* profile, double wall) {
  auto j = nlohmann::json::parse(line("yosys", profile, "A", "/p", wall, 1024, "0"));
  j["host"] = host ? nlohmann::json(host) : nlohmann::json(nullptr);
  j["machine"] = {{"cpu", cpu ? nlohmann::json(cpu) : nlohmann::json(nullptr)}, {"kernel", "6.1"}, {"cores", 2}};
  return j.dump();
}
}  // namespace

TEST_CASE("Report: --by host and --by cpu give a row per machine and compare within it", "[report][farm]") {
  std::vector<std::string> log{farm_line("n1", "EPYC", "baseline", 10), farm_line("n1", "EPYC", "jemalloc", 5),
                               farm_line("n2", "EPYC", "baseline", 20), farm_line("n2", "EPYC", "jemalloc", 16),
                               farm_line("n3", "Xeon", "baseline", 30), farm_line(nullptr, nullptr, "baseline", 1)};
  auto rows = aggregate(log, report::GroupBy::host);
  REQUIRE(rows.size() == 6);  // sorted by tool, then host: "" (unknown), n1 (baseline, jemalloc), n2 (both), n3
  CHECK(rows[0].by == "");
  CHECK(rows[1].by == "n1");
  CHECK(rows[2].by == "n1");
  CHECK(rows[2].profile == "jemalloc");
  CHECK_THAT(*rows[2].time_ratio, WithinRel(0.5, 1e-12));  // 5 / 10 on n1, not against n2's 20
  CHECK(rows[3].by == "n2");
  CHECK(rows[4].by == "n2");
  CHECK_THAT(*rows[4].time_ratio, WithinRel(16.0 / 20.0, 1e-12));
  CHECK(rows[5].by == "n3");
  CHECK(rows[5].runs == 1);
  rows = aggregate(log, report::GroupBy::cpu);
  REQUIRE(rows.size() == 4);  // "" (unknown), EPYC baseline, EPYC jemalloc, Xeon baseline
  CHECK(rows[0].by == "");
  CHECK(rows[1].by == "EPYC");
  CHECK(rows[1].runs == 2);
  CHECK(rows[1].wall.median == 15);  // 10 and 20
  CHECK(rows[2].by == "EPYC");
  CHECK(rows[2].runs == 2);
  CHECK(rows[3].by == "Xeon");
  CHECK(rows[3].runs == 1);
  // Rendered: the column is named for the grouping; an unnamed machine is "(unknown)", null in JSON.
  auto table = commands::report_table(rows, report::GroupBy::cpu);
  CHECK(table.headers[3] == "cpu");
  CHECK(table.rows[0][3] == "(unknown)");
  auto j = nlohmann::json::parse(commands::report_json(rows, report::GroupBy::cpu));
  CHECK(j[0]["cpu"].is_null());
  CHECK(j[3]["cpu"] == "Xeon");
  CHECK(report::group_by_named("host") == std::optional<report::GroupBy>(report::GroupBy::host));
  CHECK_FALSE(report::group_by_named("node").has_value());
}

TEST_CASE("Report: a directory's run logs are its *.jsonl and rotated *.jsonl.N files, in name order", "[report][farm]") {
  CHECK(report::is_log_file_name("node1.jsonl"));
  CHECK(report::is_log_file_name("node1.jsonl.1"));
  CHECK(report::is_log_file_name("node1.jsonl.12"));
  CHECK_FALSE(report::is_log_file_name("node1.jsonl."));
  CHECK_FALSE(report::is_log_file_name("node1.jsonl.1.gz"));
  CHECK_FALSE(report::is_log_file_name("node1.jsonl.tmp"));
  CHECK_FALSE(report::is_log_file_name("node1.json"));
  CHECK_FALSE(report::is_log_file_name(".jsonl"));
  CHECK_FALSE(report::is_log_file_name(".node1.jsonl"));  // hidden: an editor's or a copy's
  CHECK_FALSE(report::is_log_file_name("notes.txt"));
  CHECK(report::log_file_names({"b.jsonl", "notes.txt", "a.jsonl.1", "a.jsonl", ".", ".."}) ==
        std::vector<std::string>{"a.jsonl", "a.jsonl.1", "b.jsonl"});
}

TEST_CASE("Report: --log DIR reads every log in it, a log that cannot be read is named and the rest still count", "[report][farm]") {
  TempDir t;
  t.write("farm/n1.jsonl", farm_line("n1", "EPYC", "baseline", 1) + "\n" + farm_line("n1", "EPYC", "baseline", 2) + "\n");
  t.write("farm/n1.jsonl.1", farm_line("n1", "EPYC", "baseline", 3) + "\n");
  t.write("farm/n2.jsonl", farm_line("n2", "Xeon", "baseline", 4) + "\nnot json\n");
  t.write("farm/README.txt", "not a log\n");
  util::make_dirs(t.path + "/farm/old.jsonl");  // a directory, not a log
  const util::Voice voice("edashim report");
  auto logs = commands::select_logs({t.path + "/farm", t.path + "/missing.jsonl"}, voice, {});
  CHECK(logs.status == 0);
  CHECK(logs.unreadable == 0);
  REQUIRE(logs.files == std::vector<std::string>{t.path + "/farm/n1.jsonl", t.path + "/farm/n1.jsonl.1",
                                                  t.path + "/farm/n2.jsonl", t.path + "/missing.jsonl"});
  report::Aggregator agg(report::GroupBy::host);
  auto reads = commands::scan_logs(logs.files, {}, [&](const runlog::RunRecord& r) { agg.add(r); });
  REQUIRE(reads.size() == 4);
  CHECK(reads[0].error.empty());
  CHECK(reads[2].stats.malformed == 1);
  CHECK(reads[3].error.find("cannot open the run log " + t.path + "/missing.jsonl") == 0);
  auto rows = agg.rows();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].by == "n1");
  CHECK(rows[0].runs == 3);  // two in n1.jsonl, one in its rotated n1.jsonl.1
  CHECK(rows[1].by == "n2");
  CHECK(rows[1].runs == 1);
  logs = commands::select_logs({t.path + "/farm/README.txt"}, voice, {});
  CHECK(logs.files == std::vector<std::string>{t.path + "/farm/README.txt"});  // a file named is read as named
}

// Issue 24: log lines are data another program (or user) wrote.
TEST_CASE("Report: a line nested deeper than any record is not one, and never crashes", "[report][issue24]") {
  runlog::RunRecord r;
  std::string deep = "{\"tool\":\"yosys\",\"env_set\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
  CHECK_FALSE(runlog::parse_run_line(deep, r));
  std::string verified = "{\"allocator_verified\":";
  for (int i = 0; i < 200000; ++i) verified += "{\"verified\":";
  CHECK_FALSE(runlog::parse_run_line(verified + "true" + std::string(200000, '}') + "}", r));
  // Within the bound: read.
  CHECK(runlog::parse_run_line("{\"tool\":\"yosys\",\"x\":" + std::string(60, '[') + std::string(60, ']') + "}", r));
  CHECK(r.tool == "yosys");
}

TEST_CASE("Report: JSON output survives invalid UTF-8 from a log", "[report][issue24]") {
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line("{\"tool\":\"yo\xffsys\",\"profile\":\"p\xc3\",\"exit_code\":0,\"wall_s\":1}", r));
  report::Aggregator agg(report::GroupBy::none);
  agg.add(r);
  std::string text;
  REQUIRE_NOTHROW(text = commands::report_json(agg.rows(), report::GroupBy::none));
  auto back = nlohmann::json::parse(text);
  CHECK(back[0]["tool"] == "yo\xEF\xBF\xBDsys");  // U+FFFD
  CHECK(commands::json_text(nlohmann::json{{"a", "\xff"}}) == "{\n  \"a\": \"\xEF\xBF\xBD\"\n}");
  // The text table escapes it, and control characters, rather than print them raw.
  REQUIRE(runlog::parse_run_line("{\"tool\":\"t\\u001b[2J\xff\",\"exit_code\":0,\"wall_s\":1}", r));
  report::Aggregator agg2(report::GroupBy::none);
  agg2.add(r);
  auto table = commands::report_table(agg2.rows(), report::GroupBy::none);
  CHECK(table.rows[0][0] == "t\\x1B[2J\\xFF");
}

TEST_CASE("Report: plain runs split by allocator, the system allocator is the reference, a killed run is not a failure", "[report]") {
  auto with = [](std::string l, const char* arm, std::optional<int> signal = std::nullopt) {
    auto j = nlohmann::json::parse(l);
    j["arm"] = arm;
    if (signal) {
      j["signal"] = *signal;
      j["exit_code"] = nullptr;
    }
    return j.dump();
  };
  std::vector<std::string> log{
      // Plain runs (no profile) of two allocators, command A: system 10, 12; jemalloc 5, 6, a Ctrl-C, a failure.
      with(line("yosys", nullptr, "A", "/p", 10, 1, "0"), "system"), with(line("yosys", nullptr, "A", "/p", 12, 1, "0"), "system"),
      with(line("yosys", nullptr, "A", "/p", 5, 1, "0"), "jemalloc"), with(line("yosys", nullptr, "A", "/p", 6, 1, "0"), "jemalloc"),
      with(line("yosys", nullptr, "A", "/p", 1, 1, "0"), "jemalloc", 2), with(line("yosys", nullptr, "A", "/p", 7, 1, "1"), "jemalloc")};
  auto rows = aggregate(log, report::GroupBy::none);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].arm == "system");  // the reference first
  CHECK(rows[0].time_ratio == std::optional<double>(1.0));
  CHECK(rows[1].arm == "jemalloc");
  CHECK(rows[1].profile.empty());
  CHECK(rows[1].runs == 4);
  CHECK(rows[1].failures == 1);
  CHECK(rows[1].killed == 1);
  CHECK(rows[1].wall.n == 2);
  REQUIRE(rows[1].time_ratio.has_value());
  CHECK_THAT(*rows[1].time_ratio, WithinRel(5.5 / 11.0, 1e-12));  // jemalloc's median / system's
  auto j = nlohmann::json::parse(commands::report_json(rows, report::GroupBy::none));
  CHECK(j[1]["allocator"] == "jemalloc");
  CHECK(j[1]["killed"] == 1);
  CHECK(j[1]["failures"] == 1);
}

// Issue 25: a run edashim exec'd in its own place (traced, valgrind, fallback) has null times.
TEST_CASE("Report: a run with null times is a run without figures, not a malformed line", "[report]") {
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(
      R"x({"tool":"ftool","traced":"gdb (pid 9)","wall_s":null,"user_s":null,"sys_s":null,"max_rss_kb":null,"status":null})x", r));
  CHECK(r.untimed);
  REQUIRE(runlog::parse_run_line(R"({"tool":"ftool","wall_s":1.5,"user_s":1,"sys_s":0,"max_rss_kb":9,"exit_code":0})", r));
  CHECK_FALSE(r.untimed);  // nothing of the previous line survives
  CHECK(r.wall_s == 1.5);
  TempDir t;
  t.write("log.jsonl", R"({"tool":"ftool","wall_s":null,"user_s":null,"sys_s":null,"max_rss_kb":null})"
                       "\n" R"({"tool":"ftool","wall_s":2,"user_s":1,"sys_s":0,"max_rss_kb":9,"exit_code":0})" "\n");
  std::size_t seen = 0;
  auto reads = commands::scan_logs({t.path + "/log.jsonl"}, {}, [&](const runlog::RunRecord&) { ++seen; });
  REQUIRE(reads.size() == 1);
  CHECK(reads[0].stats.malformed == 0);
  CHECK(reads[0].stats.untimed == 1);
  CHECK(seen == 1);  // only the timed run reaches the tables
}

// Run in place, a tool killed by a signal told nothing: its wall time, status and signal are
// known, its CPU times and peak are null. It counts (a killed run), its figures do not.
TEST_CASE("Report: a run whose CPU and peak are unknown counts, without its peak", "[report]") {
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(
      R"x({"tool":"ftool","wall_s":0.5,"user_s":null,"sys_s":null,"max_rss_kb":null,"status":143,"signal":15})x", r));
  CHECK_FALSE(r.untimed);
  CHECK(r.figures_unknown);
  CHECK(r.wall_s == 0.5);
  REQUIRE(runlog::parse_run_line(R"({"tool":"ftool","wall_s":1.5,"user_s":1,"sys_s":0,"max_rss_kb":9,"exit_code":0})", r));
  CHECK_FALSE(r.figures_unknown);  // nothing of the previous line survives
  const std::vector<std::string> lines{
      R"x({"tool":"ftool","wall_s":0.5,"user_s":null,"sys_s":null,"max_rss_kb":null,"status":143,"signal":15})x",
      R"({"tool":"ftool","wall_s":0.2,"user_s":null,"sys_s":null,"max_rss_kb":null,"status":0,"exit_code":0})",
      R"({"tool":"ftool","wall_s":2,"user_s":1,"sys_s":0,"max_rss_kb":9,"exit_code":0,"status":0})"};
  TempDir t;
  t.write("log.jsonl", lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n");
  std::size_t seen = 0;
  auto reads = commands::scan_logs({t.path + "/log.jsonl"}, {}, [&](const runlog::RunRecord&) { ++seen; });
  REQUIRE(reads.size() == 1);
  CHECK(reads[0].stats.untimed == 0);
  CHECK(seen == 3);
  auto rows = aggregate(lines, report::GroupBy::none);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].runs == 3);
  CHECK(rows[0].killed == 1);
  CHECK(rows[0].median_rss_kb == 9);  // the unknown peaks are not zeros
}

TEST_CASE("Report: the CSV's shares and ratios are plain numbers (issue 38 item 9)", "[report]") {
  report::GroupRow r;
  r.tool = "yosys";
  r.arm = "jemalloc";
  r.runs = 4;
  r.verified_share = 1.0;
  r.time_ratio = 0.8;
  auto text = commands::report_table({r}, report::GroupBy::none);
  auto csv = commands::report_table({r}, report::GroupBy::none, true);
  CHECK(text.rows[0].back() == "0.800x");
  CHECK(text.rows[0][text.rows[0].size() - 2] == "100%");
  CHECK(csv.rows[0].back() == "0.8000");
  CHECK(csv.rows[0][csv.rows[0].size() - 2] == "1.000");
  CHECK(csv.rows[0][csv.rows[0].size() - 3] == "");  // no peak VM: empty, not "-"
  r.time_ratio.reset();
  CHECK(commands::report_table({r}, report::GroupBy::none, true).rows[0].back() == "");
}
