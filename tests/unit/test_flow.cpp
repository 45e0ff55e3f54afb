// Issue 26 item 4: a run's place in its flow (run/flow_id.cpp), the flow fields in the log and
// their reader, and `report --flow`'s per-tool figures and SVG timeline (report/flow.cpp).
// Expected figures are worked out by hand in the comments, not taken from our output.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "bench/svg.hpp"
#include "commands/report.hpp"
#include "pipeline/plan.hpp"
#include "report/flow.hpp"
#include "run/environment.hpp"
#include "run/flow_id.hpp"
#include "runlog/read.hpp"

using Catch::Matchers::WithinRel;

namespace {

// A run line as runlog/write.cpp writes the fields the flow view reads.
std::string run_line(const std::string& flow, const std::string& run_id, const char* parent, const std::string& tool,
                     double start, double wall, int exit_code = 0, const char* allocator = "system",
                     const char* verified = "true", double rss_kb = 1024) {
  nlohmann::json j;
  j["v"] = 1;
  j["start_unix"] = start;
  j["tool"] = tool;
  j["argv"] = {tool, "-q"};
  j["run_id"] = run_id;
  j["flow"] = flow;
  j["parent_run"] = parent ? nlohmann::json(parent) : nlohmann::json(nullptr);
  j["allocator"] = {{"requested", allocator}, {"library", nullptr}};
  j["wall_s"] = wall;
  j["max_rss_kb"] = rss_kb;
  j["exit_code"] = exit_code;
  j["signal"] = nullptr;
  j["allocator_verified"] = nlohmann::json::parse(verified);
  return j.dump();
}

report::FlowSummary collect(const std::string& id, const std::vector<std::string>& lines) {
  report::FlowCollector c(id);
  runlog::RunRecord r;
  for (const auto& l : lines) {
    REQUIRE(runlog::parse_run_line(l, r));
    c.add(r);
  }
  return c.summary();
}

const report::FlowToolRow& row_of(const report::FlowSummary& f, const std::string& tool) {
  for (const auto& r : f.tools)
    if (r.tool == tool) return r;
  FAIL("no row for " << tool);
  throw;
}

}  // namespace

TEST_CASE("Flow: the first run of a tree starts a flow named by its own run id, with no parent", "[flow]") {
  auto f = run::flow_identity({"PATH=/bin"}, "00112233aabbccdd");
  CHECK(f.run_id == "00112233aabbccdd");
  CHECK(f.flow == "00112233aabbccdd");
  CHECK(f.parent_run.empty());
  CHECK(f.note.empty());
  // An empty EDASHIM_FLOW is no flow, and nothing to complain of.
  CHECK(run::flow_identity({"EDASHIM_FLOW="}, "1").note.empty());
}

TEST_CASE("Flow: a run below another joins its flow and names it as parent", "[flow]") {
  auto f = run::flow_identity({"EDASHIM_FLOW=0aa1", "__EDASHIM_PARENT_RUN=77ee"}, "beef");
  CHECK(f.flow == "0aa1");
  CHECK(f.parent_run == "77ee");
  CHECK(f.run_id == "beef");
  // A flow the user names (a CI job) has no parent run above its first run.
  auto ci = run::flow_identity({"EDASHIM_FLOW=nightly-2026.12.02_run:3+x@ci"}, "beef");
  CHECK(ci.flow == "nightly-2026.12.02_run:3+x@ci");
  CHECK(ci.parent_run.empty());
  CHECK(ci.note.empty());
}

TEST_CASE("Flow: an EDASHIM_FLOW that is not an id is ignored with a note, and its parent with it", "[flow]") {
  for (std::string bad : std::vector<std::string>{"../../etc", "a b", "x\x1b[2J", "a;rm", std::string(129, 'a'), "\xff"}) {
    auto f = run::flow_identity({"EDASHIM_FLOW=" + bad, "__EDASHIM_PARENT_RUN=77ee"}, "beef");
    CHECK(f.flow == "beef");
    CHECK(f.parent_run.empty());
    CHECK_FALSE(f.note.empty());
    CHECK(f.note.find('\x1b') == std::string::npos);  // said on a terminal: escaped
  }
  CHECK(run::valid_flow_id(std::string(128, 'a')));
  // A parent that is not an id is dropped; the flow stays.
  auto f = run::flow_identity({"EDASHIM_FLOW=ok", "__EDASHIM_PARENT_RUN=a/b"}, "beef");
  CHECK(f.flow == "ok");
  CHECK(f.parent_run.empty());
}

TEST_CASE("Flow: run ids are 16 hex digits and differ", "[flow]") {
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    auto id = run::new_run_id();
    CHECK(std::regex_match(id, std::regex("[0-9a-f]{16}")));
    ids.insert(id);
  }
  CHECK(ids.size() == 100);
}

TEST_CASE("Flow: the tool's environment carries the flow and this run as the parent of runs below", "[flow]") {
  pipeline::Plan plan;
  plan.flow = run::flow_identity({"EDASHIM_FLOW=f1", "__EDASHIM_PARENT_RUN=p0"}, "r1");
  auto env = pipeline::plan_environment(plan, {"PATH=/bin", "EDASHIM_FLOW=f1", "__EDASHIM_PARENT_RUN=p0"}, "").env;
  CHECK(run::lookup(env, run::kFlowVar) == std::optional<std::string>("f1"));
  CHECK(run::lookup(env, run::kParentRunVar) == std::optional<std::string>("r1"));
  // One entry each: the parent's replaced, not repeated.
  CHECK(std::count_if(env.begin(), env.end(), [](const std::string& e) { return e.rfind("__EDASHIM_PARENT_RUN=", 0) == 0; }) == 1);
}

TEST_CASE("Flow: the line scanner reads run_id, flow and parent_run (null at the top)", "[flow][report]") {
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(run_line("f", "r2", "r1", "yosys", 1, 2), r));
  CHECK(r.run_id == "r2");
  CHECK(r.flow == "f");
  CHECK(r.parent_run == "r1");
  REQUIRE(runlog::parse_run_line(run_line("f", "r1", nullptr, "make", 1, 2), r));
  CHECK(r.parent_run.empty());
  // An older line has none of them.
  REQUIRE(runlog::parse_run_line(R"({"tool":"yosys","wall_s":1,"fallback":"x"})", r));
  CHECK(r.flow.empty());
  CHECK(r.run_id.empty());
}

// make runs 0-10 s; yosys twice inside it (1-4 s and 5-7 s), yosys-abc inside the first yosys
// (2-3 s, failed), and a run of another flow in the middle. The flow lasts 10 s: make's share
// is 10/10, yosys' (3+2)/10 = 0.5, yosys-abc's 1/10. Over the sum of the runs' walls (16 s)
// the shares would be 0.625, 0.3125 and 0.0625: wrong.
TEST_CASE("Flow: per tool, runs, total and median wall, share of the flow's wall, allocator, verified, peak", "[flow][report]") {
  double t0 = 1796000000;
  auto f = collect("F", {run_line("F", "m", nullptr, "make", t0, 10, 0, "system", "null"),
                         run_line("F", "y1", "m", "yosys", t0 + 1, 3, 0, "jemalloc", "true", 5000),
                         run_line("F", "a1", "y1", "yosys-abc", t0 + 2, 1, 1, "mimalloc", "false"),
                         run_line("G", "other", nullptr, "yosys", t0 + 3, 100),
                         run_line("F", "y2", "m", "yosys", t0 + 5, 2, 0, "system", "true", 7000)});
  CHECK(f.runs.size() == 4);
  CHECK(f.start == t0);
  CHECK_THAT(f.wall(), WithinRel(10.0, 1e-9));
  REQUIRE(f.tools.size() == 3);
  CHECK(f.tools[0].tool == "make");  // most total time first
  CHECK(f.tools[1].tool == "yosys");
  const auto& y = row_of(f, "yosys");
  CHECK(y.runs == 2);
  CHECK(y.failures == 0);
  CHECK_THAT(y.total_wall_s, WithinRel(5.0, 1e-9));
  CHECK_THAT(y.median_wall_s, WithinRel(2.5, 1e-9));
  CHECK_THAT(y.share, WithinRel(0.5, 1e-9));
  CHECK(y.allocators == std::vector<std::string>{"jemalloc", "system"});
  CHECK(y.verified_share == std::optional<double>(1.0));
  CHECK(y.peak_rss_kb == 7000);
  const auto& m = row_of(f, "make");
  CHECK_THAT(m.share, WithinRel(1.0, 1e-9));
  CHECK_FALSE(m.verified_share.has_value());  // null: the line does not say
  const auto& a = row_of(f, "yosys-abc");
  CHECK(a.failures == 1);
  CHECK_THAT(a.share, WithinRel(0.1, 1e-9));  // a failed run's time counts
  CHECK(a.verified_share == std::optional<double>(0.0));
}

TEST_CASE("Flow: \"last\" is the flow whose run ended last, records and bad ids do not count", "[flow][report]") {
  report::LastFlow last;
  runlog::RunRecord r;
  auto add = [&](const std::string& l) {
    REQUIRE(runlog::parse_run_line(l, r));
    last.add(r);
  };
  CHECK(last.id().empty());
  add(run_line("A", "1", nullptr, "make", 100, 50));  // ends at 150
  add(run_line("B", "2", nullptr, "yosys", 120, 5));  // started later, ended earlier (125)
  CHECK(last.id() == "A");
  add(run_line("../x", "3", nullptr, "yosys", 200, 5));  // not an id: a file name would be made of it
  CHECK(last.id() == "A");
  add(R"({"record":"bench_outputs","flow":"C","start_unix":900,"tool":"yosys"})");
  CHECK(last.id() == "A");
  add(run_line("B", "4", "2", "yosys", 149, 1));  // ends at 150: a tie goes to the later line
  CHECK(last.id() == "B");
}

TEST_CASE("Flow: util::xml_text escapes markup, controls, invalid UTF-8 and XML's non-characters", "[flow][svg]") {
  CHECK(util::xml_text("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;");
  CHECK(util::xml_text("\x1b[31m") == "\\x1B[31m");
  CHECK(util::xml_text("\xff") == "\\xFF");
  CHECK(util::xml_text("\xef\xbf\xbf.\xef\xbf\xbe") == "\\xEF\\xBF\\xBF.\\xEF\\xBF\\xBE");
  CHECK(util::xml_text("caf\xc3\xa9 \xe2\x98\x83") == "caf\xc3\xa9 \xe2\x98\x83");  // text stays text
}

TEST_CASE("Flow: the SVG timeline has a bar per run with its tool and command, and nothing raw from the log", "[flow][svg]") {
  double t0 = 1796000000;
  // The hostile line written as edashim's reader would get it: raw bytes inside a JSON string.
  std::string raw = run_line("F", "y3", "m", "yosys<&>", t0 + 1, 3);
  raw.replace(raw.find("\"-q\""), 4, "\"" + std::string("</title><script>alert(1)</script>\x1b]0;x\xff\xef\xbf\xbf") + "\"");
  auto g = collect("F", {run_line("F", "m", nullptr, "make", t0, 10), raw, run_line("F", "y2", "m", "yosys<&>", t0 + 2, 3)});
  std::string svg = report::flow_svg(g);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;") != std::string::npos);
  CHECK(svg.find("yosys&lt;&amp;&gt;") != std::string::npos);
  for (char c : {'\x1b', '\x07', '\xff'}) CHECK(svg.find(c) == std::string::npos);
  CHECK(svg.find("\xef\xbf\xbf") == std::string::npos);
  // A bar (<rect> with a <title>) per run.
  std::size_t bars = 0;
  for (auto at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) ++bars;
  CHECK(bars == 3);
  CHECK(svg.find("make -q") != std::string::npos);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
}

// Two yosys runs at once (make -j2) take two lanes; a third after both reuses the first.
TEST_CASE("Flow: overlapping runs of a tool take lanes of their own, later ones reuse a free lane", "[flow][svg]") {
  double t0 = 1796000000;
  auto f = collect("F", {run_line("F", "1", nullptr, "yosys", t0, 4), run_line("F", "2", nullptr, "yosys", t0 + 1, 4),
                         run_line("F", "3", nullptr, "yosys", t0 + 6, 1)});
  std::string svg = report::flow_svg(f);
  std::regex bar("<rect x='[0-9.]+' y='([0-9.]+)' width='[0-9.]+' height='14.0'");
  std::vector<std::string> ys;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator(); ++it) ys.push_back((*it)[1]);
  REQUIRE(ys.size() == 3);
  CHECK(ys[0] != ys[1]);
  CHECK(ys[2] == ys[0]);
}

// Hand-made lines: a start of -1.7e308 and one of 1.7e308 made the flow's span infinite (every
// bar at the left edge, no axis). Such runs are passed over.
TEST_CASE("Flow: runs with times no run can have are passed over, and the timeline stays finite", "[flow][svg]") {
  double t0 = 1796000000;
  auto f = collect("F", {run_line("F", "1", nullptr, "make", t0, 10), run_line("F", "2", nullptr, "x", -1.7e308, 1),
                         run_line("F", "3", nullptr, "x", 1.7e308, 1), run_line("F", "4", nullptr, "x", t0, 1e300)});
  CHECK(f.runs.size() == 1);
  CHECK_THAT(f.wall(), WithinRel(10.0, 1e-9));
  CHECK(report::flow_svg(f).find("</svg>") != std::string::npos);
  report::LastFlow last;
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(run_line("G", "5", nullptr, "x", 1e300, 1), r));
  last.add(r);
  CHECK(last.id().empty());
}

TEST_CASE("Flow: the timeline's default file name is made of a checked id only", "[flow]") {
  CHECK(report::flow_svg_name("ci-42") == "flow-ci-42.svg");
  CHECK(report::flow_svg_name("../../x") == "flow.svg");
}

TEST_CASE("Flow: the table and JSON of report --flow", "[flow][report]") {
  double t0 = 1796000000;
  auto f = collect("F", {run_line("F", "m", nullptr, "make", t0, 10), run_line("F", "y1", "m", "yosys", t0 + 1, 4, 0, "jemalloc")});
  auto json = nlohmann::json::parse(commands::flow_json(f, "flow-F.svg"));
  CHECK(json["flow"] == "F");
  CHECK(json["svg"] == "flow-F.svg");
  CHECK(json["wall_s"] == 10.0);
  REQUIRE(json["tools"].size() == 2);
  CHECK(json["tools"][1]["tool"] == "yosys");
  CHECK(json["tools"][1]["share"] == 0.4);
  CHECK(json["runs"][0]["parent_run"].is_null());
  CHECK(json["runs"][1]["parent_run"] == "m");
  CHECK(nlohmann::json::parse(commands::flow_json(f, ""))["svg"].is_null());
  auto table = util::render_text(commands::flow_table(f));
  CHECK(table.find("40%") != std::string::npos);
  CHECK(table.find("jemalloc") != std::string::npos);
}
