// edashim bench and tune: the schedule, per-arm statistics, output comparison, formats and the
// tune choices. Expected values are worked out by hand or by scipy (quoted).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "bench/analysis.hpp"
#include "bench/runner.hpp"
#include "bench/svg.hpp"
#include "commands/tune.hpp"

using Catch::Matchers::WithinRel;

namespace {

bench::Run run(int arm, int round, double wall, double rss, bool ok = true, std::string out = "h1") {
  bench::Run r;
  r.arm = arm;
  r.round = round;
  r.ok = ok;
  r.wall_s = wall;
  r.max_rss_kb = rss;
  r.exit_code = ok ? 0 : 1;
  if (!ok) r.failure = "exit status 1: boom";
  r.hashes["stdout"] = out;
  return r;
}

}  // namespace

TEST_CASE("Bench: every round holds every arm once, shuffled, reproducibly", "[bench]") {
  auto s = bench::schedule(3, 20, 42);
  REQUIRE(s.size() == 60);
  std::set<std::vector<int>> orders;
  for (int r = 0; r < 20; ++r) {
    std::vector<int> order;
    for (int i = 0; i < 3; ++i) {
      CHECK(s[std::size_t(r * 3 + i)].second == r);
      order.push_back(s[std::size_t(r * 3 + i)].first);
    }
    orders.insert(order);
    std::sort(order.begin(), order.end());
    CHECK(order == std::vector<int>{0, 1, 2});
  }
  CHECK(orders.size() > 1);  // actually shuffled (all 20 rounds alike: probability 6^-19)
  CHECK(bench::schedule(3, 20, 42) == s);
}

// x = baseline [10, 11, 12, 13, 14], y = arm [7, 8, 9, 10.5, 100 (failed, excluded)]
// st.mannwhitneyu([7,8,9,10.5],[10,11,12,13,14],alternative='less') -> statistic=1.0, pvalue=0.015873015873015872
TEST_CASE("Bench: per-arm statistics, ratios to the first arm, failures excluded", "[bench]") {
  bench::Spec spec;
  spec.arms = {{"baseline", "baseline"}, {"jemalloc", "jemalloc"}};
  spec.compare = true;
  bench::Outcome o;
  double base[] = {10, 11, 12, 13, 14}, arm[] = {7, 8, 9, 10.5};
  for (int i = 0; i < 5; ++i) o.runs.push_back(run(0, i, base[i], 1000 + 10 * i));
  for (int i = 0; i < 4; ++i) o.runs.push_back(run(1, i, arm[i], 1200));
  o.runs.push_back(run(1, 4, 100, 5000, false));
  auto a = bench::analyse(spec, o, 1000);
  REQUIRE(a.size() == 2);
  CHECK(a[0].ok == 5);
  CHECK(a[1].ok == 4);
  CHECK(a[1].failed == 1);
  CHECK(a[1].failures[0] == "round 5: exit status 1: boom");
  CHECK_THAT(a[1].wall_s.median, WithinRel(8.5, 1e-12));
  CHECK_THAT(a[1].median_ratio, WithinRel(8.5 / 12, 1e-12));
  CHECK_THAT(a[1].mean_ratio, WithinRel(8.625 / 12, 1e-12));
  // p5: baseline 10 + 0.2*1 = 10.2; arm 7 + 0.15*1 = 7.15
  CHECK_THAT(a[1].p5_ratio, WithinRel(7.15 / 10.2, 1e-12));
  CHECK_THAT(a[1].rss_ratio, WithinRel(1200.0 / 1020.0, 1e-12));
  REQUIRE(a[1].test.has_value());
  CHECK(a[1].test->exact);
  CHECK_THAT(a[1].test->p, WithinRel(0.015873015873015872, 1e-12));
  REQUIRE(a[1].median_ratio_ci.has_value());
  CHECK(a[1].median_ratio_ci->lo <= a[1].median_ratio);
  CHECK(a[1].median_ratio_ci->hi >= a[1].median_ratio);
  CHECK_FALSE(a[0].test.has_value());
  CHECK(a[0].outputs == "reference");
  CHECK(a[1].outputs == "identical");
}

TEST_CASE("Bench: outputs that differ from the first arm's, or vary, are named", "[bench]") {
  bench::Spec spec;
  spec.arms = {{"a", "a"}, {"b", "b"}, {"c", "c"}};
  spec.compare = true;
  bench::Outcome o;
  o.runs = {run(0, 0, 1, 1, true, "h1"), run(0, 1, 1, 1, true, "h1"), run(1, 0, 1, 1, true, "h2"),
            run(1, 1, 1, 1, true, "h2"), run(2, 0, 1, 1, true, "h1"), run(2, 1, 1, 1, true, "h3")};
  auto a = bench::analyse(spec, o, 100);
  CHECK(a[0].outputs == "reference");
  CHECK(a[1].outputs == "differs: stdout");
  CHECK(a[2].outputs == "varies between runs: stdout");
}

TEST_CASE("Bench: CSV has one column per figure, JSON every run", "[bench]") {
  bench::Spec spec;
  spec.arms = {{"baseline", "baseline"}, {"mimalloc", "mimalloc"}};
  spec.command = {"yosys", "-q"};
  bench::Outcome o;
  o.runs = {run(0, 0, 2, 1024), run(1, 0, 1, 2048), run(0, 1, 4, 1024), run(1, 1, 3, 2048)};
  auto a = bench::analyse(spec, o, 100);
  auto csv = util::render_csv(bench::bench_table(a, false, false));
  CHECK(csv.substr(0, csv.find('\n')) ==
        "arm,ok,failed,mean_s,median_s,p5_s,p95_s,mean_ratio,median_ratio,p5_ratio,p95_ratio,p_faster,p_method,ci95_lo,"
        "ci95_hi,peak_rss_mb,rss_ratio,verified");
  CHECK(csv.find("\nmimalloc,2,0,2.000000,2.000000,1.100000,2.900000,0.6667,0.6667,0.5238,0.7436,") != std::string::npos);
  auto j = nlohmann::json::parse(bench::bench_json(spec, o, a));
  REQUIRE(j["arms"].size() == 2);
  CHECK(j["arms"][1]["runs"].size() == 2);
  CHECK(j["arms"][1]["ratio_to_first"]["peak_rss"] == 2.0);
  CHECK(j["arms"][0]["mann_whitney"].is_null());
  CHECK(j["arms"][1]["mann_whitney"]["exact"] == true);
  CHECK(j["command"] == nlohmann::json({"yosys", "-q"}));
}

TEST_CASE("Bench: the plot is an SVG with one row per arm", "[bench]") {
  bench::Spec spec;
  spec.arms = {{"baseline", "baseline"}, {"je<malloc>", "x"}};
  bench::Outcome o;
  o.runs = {run(0, 0, 2, 1024), run(1, 0, 1, 2048), run(0, 1, 4, 1024), run(1, 1, 3, 2048)};
  auto svg = bench::plot_bench(bench::analyse(spec, o, 100), "t & t", "s");
  CHECK(svg.rfind("<svg xmlns='http://www.w3.org/2000/svg'", 0) == 0);
  CHECK(svg.find("je&lt;malloc&gt;") != std::string::npos);  // escaped
  CHECK(svg.find("t &amp; t") != std::string::npos);
  CHECK(svg.find("</svg>") != std::string::npos);
  // 4 runs, each drawn in both panels
  std::size_t circles = 0;
  for (auto p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++circles;
  CHECK(circles == 8);
  auto ticks = bench::nice_ticks(0.93, 2.07);
  std::vector<double> expect{1.0, 1.2, 1.4, 1.6, 1.8, 2.0};
  REQUIRE(ticks.size() == expect.size());
  for (std::size_t i = 0; i < ticks.size(); ++i) CHECK(ticks[i] == Approx(expect[i]));
}

// scipy.stats.gaussian_kde uses Scott's rule; ours is Silverman's, so check the rule itself:
// xs = [1,2,3,4]: sd = 1.2909944, IQR/1.34 = 1.5/1.34 = 1.1194 -> bw = 0.9 * 1.1194 * 4^-0.2 = 0.76328
// density at 2.5 = sum(exp(-0.5((2.5-x)/bw)^2)) / (4 bw sqrt(2 pi))
TEST_CASE("Bench: density follows Silverman's rule of thumb", "[bench]") {
  double bw = 0.9 * (1.5 / 1.34) * std::pow(4.0, -0.2);
  double expect = 0;
  for (double x : {1.0, 2.0, 3.0, 4.0}) expect += std::exp(-0.5 * std::pow((2.5 - x) / bw, 2));
  expect /= 4 * bw * std::sqrt(2 * M_PI);
  auto d = bench::density({1, 2, 3, 4}, {2.5});
  CHECK_THAT(d[0], WithinRel(expect, 1e-12));
}

TEST_CASE("Tune: option specs, TOML values and the profile snippet", "[tune]") {
  std::string err;
  auto o = commands::parse_tune_option("mimalloc.eager_commit_delay=0,1,4", err);
  REQUIRE(o.has_value());
  CHECK(o->family == "mimalloc");
  CHECK(o->key == "eager_commit_delay");
  CHECK(o->values == std::vector<std::string>{"0", "1", "4"});
  CHECK_FALSE(commands::parse_tune_option("eager_commit_delay=0", err).has_value());
  CHECK_FALSE(commands::parse_tune_option("foo.x=1", err).has_value());
  CHECK(err.find("unknown allocator family") != std::string::npos);
  CHECK_FALSE(commands::parse_tune_option("mimalloc.x=", err).has_value());
  CHECK(commands::toml_value("4") == "4");
  CHECK(commands::toml_value("-2") == "-2");
  CHECK(commands::toml_value("0.5") == "0.5");
  CHECK(commands::toml_value("true") == "true");
  CHECK(commands::toml_value("dirty_decay_ms:0") == "\"dirty_decay_ms:0\"");
  CHECK(commands::toml_value("1e") == "\"1e\"");
  CHECK(commands::toml_value("a\"b") == "\"a\\\"b\"");
  CHECK(commands::profile_toml("mimalloc", {{"mimalloc", {{"eager_commit_delay", "1"}, {"purge_delay", "10"}}}}) ==
        "allocator = \"mimalloc\"\n\n[mimalloc]\neager_commit_delay = 1\npurge_delay = 10\n");
}

TEST_CASE("Tune: the fastest setting within the memory budget wins", "[tune]") {
  using C = commands::Candidate;
  std::vector<C> c{{"", 10, 0.9, 1.00, 5}, {"0", 8, 0.7, 1.20, 5}, {"1", 9, 0.8, 1.04, 5}, {"4", 1, 0.1, 1.0, 0}};
  bool within = false;
  CHECK(commands::choose(c, 1.05, within) == std::optional<std::size_t>(2));  // "0" is faster but over budget
  CHECK(within);
  CHECK(commands::choose(c, 1.5, within) == std::optional<std::size_t>(1));
  CHECK(commands::choose(c, 0.5, within) == std::optional<std::size_t>(0));  // none within: the leanest
  CHECK_FALSE(within);
  std::vector<C> none{{"x", 0, 0, 0, 0}};
  CHECK_FALSE(commands::choose(none, 1.05, within).has_value());
}
