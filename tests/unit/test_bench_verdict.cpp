// bench's verdict (issue 28): hyperfine's closing line per arm, the advice that makes a winner
// stick, and the checks that fail a benchmark or warn about its figures.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "bench/analysis.hpp"
#include "bench/command_tool.hpp"
#include "bench/outputs_record.hpp"
#include "bench/verdict.hpp"

using Catch::Matchers::WithinRel;

namespace {

bench::ArmRun run(int arm, int round, double wall, bool ok = true, std::string out = "h1", std::string file = "n1") {
  bench::ArmRun r;
  r.arm = arm;
  r.round = round;
  r.ok = ok;
  r.record.wall_s = wall;
  r.record.user_s = wall * 0.9;
  r.record.max_rss_kb = 1024;
  r.record.exit_code = ok ? 0 : 1;
  r.record.arm = arm == 0 ? "system" : "jemalloc";
  if (!ok) r.failure = "exit status 1: boom";
  r.hashes["stdout"] = out;
  if (!file.empty()) r.hashes["net.v"] = file;
  return r;
}

bench::Spec two_arms(bool compare) {
  bench::Spec spec;
  spec.arms = {{"baseline", "baseline"}, {"jemalloc", "jemalloc"}};
  spec.command = {"yosys", "-q"};
  spec.compare = compare;
  if (compare) spec.compare_outputs = {"net.v"};
  return spec;
}

// Ten rounds: the reference near 2.0 s, the arm near `arm_wall` s, a little spread in both.
bench::BenchResult outcome(double arm_wall, std::string arm_file = "n1", int failed_arm_runs = 0) {
  bench::BenchResult o;
  for (int r = 0; r < 10; ++r) {
    double jitter = 0.01 * (r % 5);
    o.runs.push_back(run(0, r, 2.0 + jitter));
    o.runs.push_back(run(1, r, arm_wall + jitter, r >= failed_arm_runs, "h1", arm_file));
  }
  return o;
}

}  // namespace

TEST_CASE("Verdict: a clearly faster arm with identical outputs: hyperfine's line and the TOML that makes it stick", "[bench][verdict]") {
  auto spec = two_arms(true);
  auto arms = bench::analyse(spec, outcome(1.6), 1000);
  auto v = bench::decide(spec, arms, "yosys");
  REQUIRE(v.winner == std::optional<std::size_t>(1));
  REQUIRE(v.arms.size() == 1);
  INFO(v.arms[0].line);
  INFO(v.adopt_toml);
  // hyperfine: mean(ref) / mean(arm) = 2.02 / 1.62; error from both relative sigmas in quadrature.
  CHECK_THAT(v.arms[0].speedup, WithinRel(2.02 / 1.62, 1e-9));
  double sd = bench::sample_sd({0, 0.01, 0.02, 0.03, 0.04, 0, 0.01, 0.02, 0.03, 0.04});
  CHECK_THAT(v.arms[0].speedup_sd, WithinRel(2.02 / 1.62 * std::hypot(sd / 1.62, sd / 2.02), 1e-9));
  CHECK(v.arms[0].line.rfind("jemalloc ran 1.25 \u00b1 0.01 times faster than baseline (median 0.802x, 95% CI 0.79-0.81; peak RSS 1.000x)", 0) == 0);
  CHECK(v.advice.find("jemalloc is faster with identical outputs") != std::string::npos);
  CHECK(v.adopt_toml.find("[tool.yosys]") != std::string::npos);
  CHECK(v.adopt_toml.find("allocator = \"jemalloc\"") != std::string::npos);
  auto text = bench::render_verdict(v);
  INFO(text);
  CHECK(text.rfind("Summary\n  jemalloc ran 1.25", 0) == 0);
  // The lines to paste stand apart, whole, after the prose (issue 38 item 9: "add to" was
  // wrapped away from its file, and the TOML wrapped with the words).
  CHECK(text.find("\n      [tool.yosys]\n      allocator = \"jemalloc\"\n") != std::string::npos);
  CHECK(text.find("yourself:\n      [tool.yosys]") != std::string::npos);
  auto md = bench::render_verdict(v, true);
  INFO(md);
  CHECK(md.find("```toml\n[tool.yosys]\nallocator = \"jemalloc\"\n```\n") != std::string::npos);
  CHECK(md.find("- jemalloc ran 1.25") != std::string::npos);
  // With --adopt the summary says where it goes, and offers nothing to paste.
  spec.adopt_into = "/p/.edashim.toml";
  auto adopting = bench::decide(spec, arms, "yosys");
  CHECK(adopting.advice == "jemalloc is faster with identical outputs: --adopt writes it into /p/.edashim.toml (below).");
  CHECK_FALSE(adopting.offer_toml);
  CHECK(bench::render_verdict(adopting).find("[tool.yosys]") == std::string::npos);
}

// Adopting follows report --recommend's rule (issue 38 item 7: --adopt wrote a winner at peak RSS
// 1.13x and p 0.016, which recommend refuses): one function, learn::figures_missing, for both.
TEST_CASE("Verdict: a clear winner over the memory budget, or on thin evidence, is not adopted", "[bench][verdict]") {
  auto spec = two_arms(true);
  auto o = outcome(1.6);
  for (auto& r : o.runs)
    if (r.arm == 1) r.record.max_rss_kb = 1024 * 1.2;
  auto v = bench::decide(spec, bench::analyse(spec, o, 1000), "yosys");
  REQUIRE(v.winner == std::optional<std::size_t>(1));
  INFO(v.advice);
  CHECK(v.advice.find("not by the rule adopting follows (report --recommend's): peak RSS 1.200x over the budget 1.10x") !=
        std::string::npos);
  CHECK(v.adopt_toml.empty());
  CHECK_FALSE(v.offer_toml);
  // Five rounds are clearly faster, and too few to adopt on.
  bench::BenchResult few;
  for (auto& r : outcome(1.6).runs)
    if (r.round < 5) few.runs.push_back(r);
  auto thin = bench::decide(spec, bench::analyse(spec, few, 1000), "yosys");
  REQUIRE(thin.winner == std::optional<std::size_t>(1));
  INFO(thin.advice);
  CHECK(thin.advice.find("thin evidence: 5 successful runs (needs >= 10 per arm: -n 10)") != std::string::npos);
  CHECK(thin.adopt_toml.empty());
}

TEST_CASE("Verdict: a slower arm is said slower, and nothing is adopted", "[bench][verdict]") {
  auto spec = two_arms(true);
  auto v = bench::decide(spec, bench::analyse(spec, outcome(2.5), 1000), "yosys");
  CHECK_FALSE(v.winner);
  CHECK(v.arms[0].line.find("times slower than baseline") != std::string::npos);
  CHECK(v.advice.find("nothing here to adopt") != std::string::npos);
  CHECK(v.adopt_toml.empty());
}

TEST_CASE("Verdict: noise is not a win", "[bench][verdict]") {
  auto spec = two_arms(false);
  bench::BenchResult o;
  for (int r = 0; r < 10; ++r) {
    o.runs.push_back(run(0, r, r % 2 ? 1.0 : 3.0));
    o.runs.push_back(run(1, r, r % 2 ? 3.0 : 1.0));
  }
  auto v = bench::decide(spec, bench::analyse(spec, o, 1000), "yosys");
  CHECK_FALSE(v.winner);
  CHECK_FALSE(v.arms[0].clearly_faster);
  // Not "ran N times faster" beside a CI that says nothing of the kind (issue 38 item 8).
  INFO(v.arms[0].line);
  CHECK(v.arms[0].line.rfind("jemalloc: no clear difference from baseline (by the means ", 0) == 0);
  CHECK(v.arms[0].line.find(" ran ") == std::string::npos);
}

// Two arms both clearly faster than the first: the faster of them wins, whichever comes first
// (bench --adopt writes the winner's settings).
TEST_CASE("Verdict: of two clearly faster arms, the faster one wins", "[bench][verdict]") {
  for (bool fastest_last : {true, false}) {
    bench::Spec spec = two_arms(true);
    spec.arms.push_back({"mimalloc", "mimalloc"});
    double walls[3] = {2.0, fastest_last ? 1.6 : 1.2, fastest_last ? 1.2 : 1.6};
    bench::BenchResult o;
    for (int r = 0; r < 10; ++r)
      for (int a = 0; a < 3; ++a) {
        o.runs.push_back(run(a, r, walls[a] + 0.01 * (r % 5)));
        if (a == 2) o.runs.back().record.arm = "mimalloc";
      }
    auto v = bench::decide(spec, bench::analyse(spec, o, 1000), "yosys");
    INFO("fastest last: " << fastest_last << "; " << v.advice);
    REQUIRE(v.arms.size() == 2);
    CHECK(v.arms[0].clearly_faster);  // premise: both are
    CHECK(v.arms[1].clearly_faster);
    std::size_t fastest = fastest_last ? 2 : 1;
    CHECK(v.winner == std::optional<std::size_t>(fastest));
    std::string name = fastest_last ? "mimalloc" : "jemalloc";
    CHECK(v.advice.rfind(name + " is faster with identical outputs", 0) == 0);
    CHECK(v.adopt_toml.find("allocator = \"" + name + "\"") != std::string::npos);
  }
}

// A machine that drifts: rounds alternate between quiet and busy (3x slower), and the arm is 5%
// faster within every round. Pooled, the runs overlap and the unpaired CI straddles 1; round by
// round the gain is plain, and the verdict is the paired one (the p beside it is paired too).
bench::BenchResult drifting(int rounds) {
  bench::BenchResult o;
  for (int r = 0; r < rounds; ++r) {
    double slow = r % 2 ? 3.0 : 1.0;
    double jitter = 0.002 * (r % 3);
    o.runs.push_back(run(0, r, 2.0 * slow + jitter));
    o.runs.push_back(run(1, r, 1.9 * slow + jitter));
  }
  return o;
}

TEST_CASE("Verdict: judged round by round with enough rounds, on the pooled runs with fewer", "[bench][verdict]") {
  auto spec = two_arms(true);
  auto o = drifting(10);
  auto arms = bench::analyse(spec, o, 1000);
  REQUIRE(arms[1].median_ratio_ci);
  CHECK(arms[1].median_ratio_ci->hi > 1);  // premise: pooled, nothing clear
  auto paired = bench::analyse_paired(spec, o, 1000);
  CHECK_FALSE(bench::decide(spec, arms, "yosys").winner);
  auto v = bench::decide(spec, arms, "yosys", &paired);
  INFO(v.arms[0].line);
  REQUIRE(v.winner == std::optional<std::size_t>(1));
  CHECK(v.arms[0].paired);
  CHECK(v.arms[0].line.find("(paired median 0.950x over 10 rounds, 95% CI 0.95-0.95;") != std::string::npos);
  CHECK(v.advice.find("jemalloc is faster with identical outputs") != std::string::npos);
  // Four rounds: too few to judge by round; the pooled figures decide, and say so by their name.
  auto few = drifting(4);
  auto few_arms = bench::analyse(spec, few, 1000);
  auto few_paired = bench::analyse_paired(spec, few, 1000);
  auto w = bench::decide(spec, few_arms, "yosys", &few_paired);
  CHECK_FALSE(w.arms[0].paired);
  CHECK(w.arms[0].line.find("(median ") != std::string::npos);
  CHECK_FALSE(w.winner);
  // A failed run still rules an arm out, paired or not.
  auto failed = drifting(10);
  failed.runs[1].ok = false;
  failed.runs[1].failure = "exit status 1: boom";
  auto fa = bench::analyse(spec, failed, 1000);
  auto fp = bench::analyse_paired(spec, failed, 1000);
  CHECK_FALSE(bench::decide(spec, fa, "yosys", &fp).winner);
}

TEST_CASE("Verdict: a faster arm whose outputs differ, or were not compared, or that failed a run, is not adopted", "[bench][verdict]") {
  SECTION("outputs differ") {
    auto spec = two_arms(true);
    auto v = bench::decide(spec, bench::analyse(spec, outcome(1.6, "n2"), 1000), "yosys");
    REQUIRE(v.winner);
    CHECK(v.advice.find("do not adopt it") != std::string::npos);
    CHECK(v.adopt_toml.empty());
  }
  SECTION("outputs not compared") {
    auto spec = two_arms(false);
    auto v = bench::decide(spec, bench::analyse(spec, outcome(1.6), 1000), "yosys");
    REQUIRE(v.winner);
    CHECK(v.advice.find("--compare-outputs") != std::string::npos);
    CHECK(v.adopt_toml.empty());
  }
  SECTION("a failed run") {
    auto spec = two_arms(true);
    auto v = bench::decide(spec, bench::analyse(spec, outcome(1.6, "n1", 1), 1000), "yosys");
    CHECK_FALSE(v.winner);
  }
  SECTION("the current choice (no -p) wins: nothing to change") {
    auto spec = two_arms(true);
    spec.arms[1] = {"jemalloc (current)", ""};
    auto v = bench::decide(spec, bench::analyse(spec, outcome(1.6), 1000), "yosys");
    REQUIRE(v.winner);
    CHECK(v.advice.find("nothing to change") != std::string::npos);
  }
}

TEST_CASE("Verdict: a compared file no run of any arm left fails the bench, one arm's missing file does not", "[bench][verdict]") {
  auto spec = two_arms(true);
  spec.compare_outputs = {"net.v", "nothere.v"};
  auto o = outcome(1.6);
  for (auto& r : o.runs) r.hashes["nothere.v"] = bench::kMissing;
  for (auto& r : o.runs)
    if (r.arm == 1) r.hashes["net.v"] = bench::kMissing;
  auto arms = bench::analyse(spec, o, 100);
  CHECK(bench::missing_everywhere(spec, arms) == std::vector<std::string>{"nothere.v"});
  spec.compare = false;
  CHECK(bench::missing_everywhere(spec, arms).empty());
}

TEST_CASE("Verdict: an arm with runs but no successful one is named", "[bench][verdict]") {
  auto spec = two_arms(false);
  auto arms = bench::analyse(spec, outcome(1.6, "n1", 10), 100);
  CHECK(bench::arms_without_success(arms) == std::vector<std::string>{"jemalloc"});
  CHECK(bench::arms_without_success(bench::analyse(spec, outcome(1.6, "n1", 9), 100)).empty());
}

TEST_CASE("Verdict: a busy machine and runs that waited are warned about", "[bench][verdict]") {
  auto spec = two_arms(false);
  auto arms = bench::analyse(spec, outcome(1.6), 100);  // user = 0.9 wall
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(bench::noise_warnings(arms, 0.5, 2.8, 2, 1).empty());  // bench's own run is 1 of the load after
  CHECK(bench::noise_warnings(arms, nan, nan, 2, 1).empty());
  auto busy = bench::noise_warnings(arms, 8.0, 9.0, 2, 1);
  REQUIRE(busy.size() == 1);
  CHECK(busy[0].find("load average 9.0 on 2 CPUs") != std::string::npos);
  CHECK(bench::noise_warnings(arms, 0.2, 3.5, 2, 1).size() == 1);  // others kept 2.5 CPUs busy
  for (auto& a : arms)
    for (auto& u : a.user_sys) u *= 0.3;  // 0.27 of the wall time on a CPU
  auto waited = bench::noise_warnings(arms, 0.5, 1.0, 2, 1);
  REQUIRE(waited.size() == 2);
  CHECK(waited[0].find("baseline's runs were on a CPU for 27% of their wall time") != std::string::npos);
  for (auto& a : arms)
    for (auto& w : a.wall) w = 0.05;  // too short to say
  CHECK(bench::noise_warnings(arms, 0.5, 1.0, 2, 1).empty());
}

TEST_CASE("Bench: the JSON has hyperfine's results[] beside our arms[]", "[bench][verdict]") {
  auto spec = two_arms(false);
  auto o = outcome(1.6, "n1", 1);
  auto arms = bench::analyse(spec, o, 100);
  auto j = nlohmann::json::parse(bench::bench_json(spec, o, arms));
  REQUIRE(j["results"].size() == 2);
  const auto& r = j["results"][1];
  CHECK(r["command"] == "jemalloc: yosys -q");
  CHECK(r["times"].size() == 9);  // the successful runs
  CHECK(r["exit_codes"].size() == 10);
  CHECK(r["exit_codes"][0] == 1);
  CHECK_THAT(r["mean"].get<double>(), WithinRel(arms[1].wall_s.mean, 1e-12));
  CHECK_THAT(r["stddev"].get<double>(), WithinRel(bench::sample_sd(arms[1].wall), 1e-12));
  CHECK(r["median"] == arms[1].wall_s.median);
  CHECK(r["min"] == arms[1].wall_s.min);
  CHECK(r["max"] == arms[1].wall_s.max);
  CHECK_THAT(r["user"].get<double>(), WithinRel(0.9 * arms[1].wall_s.mean, 1e-9));
  CHECK(r["parameters"]["arm"] == "jemalloc");
  CHECK(j["arms"].size() == 2);  // ours, unchanged
}

TEST_CASE("Bench: sample standard deviation as numpy's std(ddof=1)", "[bench][verdict]") {
  CHECK_THAT(bench::sample_sd({1, 2, 3, 4}), WithinRel(1.2909944487358056, 1e-12));
  CHECK(std::isnan(bench::sample_sd({1})));
}

TEST_CASE("Bench: a kept run's line is marked as a bench run, a -p arm's as not the current choice", "[bench][verdict]") {
  std::string line = R"({"tool":"yosys","arm":"jemalloc","explore":null,"wall_s":1.5})";
  auto j = nlohmann::json::parse(bench::mark_bench_line(line, "local-1-2", {"jemalloc", "jemalloc"}, 2));
  CHECK(j["bench"] == nlohmann::json({{"experiment", "local-1-2"}, {"arm", "jemalloc"}, {"round", 3}}));
  CHECK(j["explore"]["by"] == "bench");
  CHECK(j["explore"]["ran"] == "jemalloc");
  CHECK(j["wall_s"] == 1.5);
  auto current = nlohmann::json::parse(bench::mark_bench_line(line, "x", {"jemalloc (current)", ""}, 0));
  CHECK(current["explore"].is_null());
  CHECK(current["bench"]["arm"] == "jemalloc (current)");
  CHECK(bench::mark_bench_line("not json", "x", {"a", "a"}, 0) == "not json");
  // The field order stays: the log's readers and people see the line as the run wrote it.
  CHECK(bench::mark_bench_line(line, "x", {"a", ""}, 0).rfind(R"({"tool":"yosys","arm":"jemalloc")", 0) == 0);
}

TEST_CASE("Bench: the tool of a command is seen through the wrappers that exec their argument", "[bench]") {
  using V = std::vector<std::string>;
  auto tool = [](V c) { return bench::tool_name(c); };
  CHECK(tool({"vpr", "arch.xml", "top.blif"}) == "vpr");
  CHECK(tool({"/opt/vtr/bin/vpr", "--pack"}) == "vpr");
  CHECK(tool({"taskset", "-c", "0", "vpr", "--pack"}) == "vpr");
  CHECK(tool({"taskset", "0x1", "vpr"}) == "vpr");
  CHECK(tool({"nice", "-n", "5", "yosys", "-q"}) == "yosys");
  CHECK(tool({"nice", "-10", "yosys"}) == "yosys");
  CHECK(tool({"nice", "--adjustment=5", "yosys"}) == "yosys");
  CHECK(tool({"ionice", "-c", "3", "yosys"}) == "yosys");
  CHECK(tool({"chrt", "-f", "10", "yosys"}) == "yosys");
  CHECK(tool({"numactl", "--cpunodebind=0", "--membind", "0", "yosys"}) == "yosys");
  CHECK(tool({"numactl", "-N", "0", "-l", "yosys"}) == "yosys");
  CHECK(tool({"stdbuf", "-oL", "-e", "0", "yosys"}) == "yosys");
  CHECK(tool({"/usr/bin/time", "-v", "-o", "t.txt", "yosys"}) == "yosys");
  CHECK(tool({"timeout", "-s", "INT", "-k", "5", "600", "vpr"}) == "vpr");
  CHECK(tool({"timeout", "--signal=INT", "1h", "vpr"}) == "vpr");
  CHECK(tool({"env", "-u", "DISPLAY", "OMP_NUM_THREADS=1", "A=b", "yosys", "X=1"}) == "yosys");
  CHECK(tool({"env", "--", "yosys"}) == "yosys");
  CHECK(tool({"setsid", "-w", "nohup", "yosys"}) == "yosys");
  CHECK(tool({"flock", "-w", "10", "/tmp/lock", "yosys"}) == "yosys");
  // Nested: each wrapper's command is the next one's.
  CHECK(tool({"nice", "-n", "5", "taskset", "-c", "0,1", "timeout", "600", "vpr", "-j", "2"}) == "vpr");
  CHECK(bench::from_tool({"taskset", "-c", "0", "vpr", "--pack"}) == V{"vpr", "--pack"});
  CHECK(bench::from_tool({"vpr", "--pack"}) == V{"vpr", "--pack"});
  // What the words cannot tell: the wrapper, as before.
  CHECK(tool({"flock", "/tmp/lock", "-c", "yosys -q"}) == "flock");
  CHECK(tool({"env", "-S", "yosys -q"}) == "env");
  CHECK(tool({"taskset", "-c", "0"}) == "taskset");  // nothing left to run
  CHECK(tool({"sh", "-c", "taskset -c 0 vpr"}) == "sh");
  CHECK(tool({}).empty());
}
