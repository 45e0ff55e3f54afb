// Issue 27: the adoption rule of `report --recommend` (learn/adopt.hpp), case by case: which
// verdicts adopt acts on, which runs count (not those before the binary's modification time),
// bench confirmation, the binary changed or gone, the re-check of a learned choice and its drop;
// and the recommendation rule's minimum runs of both arms and signatures at their boundaries.
#include <algorithm>
#include <catch2/catch.hpp>

#include "learn/adopt.hpp"
#include "learn/recommend.hpp"

namespace {

// `n` successful runs of `arm` per signature of yosys on "CPU X", wall = (1 + signature digit) *
// factor with a +-2% deterministic spread, started at t0 + 100 * signature index + i.
void add_runs(std::vector<learn::Run>& runs, const std::string& arm, const std::vector<std::string>& signatures, int n,
              double factor, double t0, bool explored = false) {
  for (std::size_t s = 0; s < signatures.size(); ++s)
    for (int i = 0; i < n; ++i) {
      learn::Run r;
      r.tool = "yosys";
      r.cpu = "CPU X";
      r.signature = signatures[s];
      r.arm = arm;
      r.path = "/usr/bin/yosys";
      r.explored = explored;
      r.ok = true;
      r.start_unix = t0 + double(s * 100 + std::size_t(i));
      r.wall_s = (1.0 + double(signatures[s].back() - '0')) * factor * (1 + 0.01 * double((i * 7) % 5 - 2));
      r.max_rss_kb = 1000 * (1 + 0.001 * double(i % 3));
      runs.push_back(r);
    }
}

const std::vector<std::string> kFour{"s1", "s2", "s3", "s4"};
constexpr int kResamples = 400;  // enough for these clear-cut samples, and quick

// mimalloc, explored, clearly faster than the current choice jemalloc: 12 runs each per signature.
std::vector<learn::Run> mimalloc_wins() {
  std::vector<learn::Run> runs;
  add_runs(runs, "mimalloc", kFour, 12, 0.8, 1000, /*explored=*/true);
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 2000);
  return runs;
}

learn::Identity binary(int64_t mtime_s) { return {"/usr/bin/yosys", 4096, mtime_s, 7}; }

learn::AdoptFacts facts(std::optional<learn::Identity> id, bool requires_bench = false) {
  return {std::move(id), requires_bench, "the user's config.toml", "/state/learned.toml", "2026-12-02T00:00:00Z"};
}

learn::Verdict verdict_of(const std::vector<learn::Run>& runs) {
  auto verdicts = learn::recommend(runs, {}, kResamples);
  REQUIRE(verdicts.size() == 1);
  return verdicts[0];
}

bool said(const learn::AdoptStep& step, const std::string& text) {
  return std::any_of(step.said.begin(), step.said.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

learn::Learned learned(const std::string& arm, const std::string& replaces, const learn::Identity& id) {
  learn::Learned l;
  l.tool = "yosys";
  l.cpu = "CPU X";
  l.arm = arm;
  l.replaces = replaces;
  l.binary = id;
  return l;
}

}  // namespace

TEST_CASE("Adopt gate: acts with adopt on and on the CPU model the runs were measured on", "[adopt]") {
  learn::Verdict v;
  v.tool = "yosys";
  v.cpu = "CPU X";
  v.recommended = 0;
  CHECK(learn::adopt_gate(v, true, "CPU X").acts);
  CHECK(learn::adopt_gate(v, true, "CPU X").said.empty());

  auto off = learn::adopt_gate(v, false, "CPU X");
  CHECK_FALSE(off.acts);
  CHECK(off.said.find("adopt: off for yosys") != std::string::npos);

  auto elsewhere = learn::adopt_gate(v, true, "CPU Y");
  CHECK_FALSE(elsewhere.acts);
  CHECK(elsewhere.said.find("are not this machine's (CPU Y)") != std::string::npos);
  CHECK_FALSE(learn::adopt_gate(v, false, "CPU Y").acts);

  v.recommended = -1;  // nothing to adopt: acts (a learned choice is re-checked), says nothing when it cannot
  CHECK(learn::adopt_gate(v, true, "CPU X").acts);
  CHECK(learn::adopt_gate(v, false, "CPU X").said.empty());
  CHECK(learn::adopt_gate(v, true, "CPU Y").said.empty());
}

TEST_CASE("Adopt: only runs started at or after the binary's modification time count", "[adopt]") {
  auto runs = mimalloc_wins();
  runs.push_back(runs.front());
  runs.back().tool = "abc";  // another tool's run is not counted
  runs.push_back(runs.front());
  runs.back().cpu = "CPU Y";  // nor one on another CPU model
  auto counted = learn::runs_of_current_binary(runs, "yosys", "CPU X", binary(1000));
  CHECK(counted.all == 96);
  CHECK(counted.runs.size() == 96);  // the first run started at the modification time exactly
  CHECK_FALSE(counted.filtered());

  counted = learn::runs_of_current_binary(runs, "yosys", "CPU X", binary(1001));
  CHECK(counted.runs.size() == 95);
  CHECK(counted.filtered());
  CHECK(std::all_of(counted.runs.begin(), counted.runs.end(), [](const learn::Run& r) { return r.start_unix >= 1001; }));

  counted = learn::runs_of_current_binary(runs, "yosys", "CPU X", std::nullopt);  // binary gone: all
  CHECK(counted.runs.size() == 96);
}

TEST_CASE("Adopt: a recommendation is adopted with its evidence and the binary it was measured on", "[adopt]") {
  auto runs = mimalloc_wins();
  auto v = verdict_of(runs);
  REQUIRE(v.recommended >= 0);
  std::vector<learn::Learned> entries;
  auto step = learn::adopt_verdict(v, facts(binary(500)), runs, {}, {}, entries, kResamples);
  CHECK(step.changed);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].arm == "mimalloc");
  CHECK(entries[0].replaces == "jemalloc");
  CHECK(entries[0].binary == binary(500));
  CHECK(entries[0].runs == 96);
  CHECK(entries[0].signatures == 4);
  CHECK(entries[0].ratio < 0.85);
  CHECK(entries[0].date == "2026-12-02T00:00:00Z");
  CHECK(said(step, "adopt: yosys now runs mimalloc on this CPU model (/state/learned.toml)"));
  CHECK_FALSE(said(step, "predate"));
}

TEST_CASE("Adopt: runs before the binary's modification time do not make a recommendation", "[adopt]") {
  auto runs = mimalloc_wins();
  auto v = verdict_of(runs);
  REQUIRE(v.recommended >= 0);  // over the whole log, mimalloc wins
  std::vector<learn::Learned> entries;
  // Every mimalloc run (1000-1311) predates a binary modified at 1500.
  auto step = learn::adopt_verdict(v, facts(binary(1500)), runs, {}, {}, entries, kResamples);
  CHECK_FALSE(step.changed);
  CHECK(entries.empty());
  CHECK(said(step, "adopt: 48 of 96 runs of yosys predate its binary (/usr/bin/yosys, modified "));
}

TEST_CASE("Adopt: bench confirmation, when required, comes from a bench that found the outputs identical", "[adopt]") {
  auto runs = mimalloc_wins();
  auto v = verdict_of(runs);
  std::vector<learn::Learned> entries;
  auto unconfirmed = learn::adopt_verdict(v, facts(binary(500), true), runs, {}, {}, entries, kResamples);
  CHECK_FALSE(unconfirmed.changed);
  CHECK(entries.empty());
  CHECK(said(unconfirmed, "adopt: mimalloc for yosys not adopted: no `edashim bench --compare-outputs`"));
  CHECK(said(unconfirmed, "(adopt_requires_bench = true, from the user's config.toml)"));

  std::vector<learn::BenchRecord> differing{{"yosys", 10, {"system"}, {"mimalloc"}}};
  CHECK_FALSE(learn::adopt_verdict(v, facts(binary(500), true), runs, differing, {}, entries, kResamples).changed);
  std::vector<learn::BenchRecord> other_tool{{"abc", 10, {"system", "mimalloc"}, {}}};
  CHECK_FALSE(learn::adopt_verdict(v, facts(binary(500), true), runs, other_tool, {}, entries, kResamples).changed);
  CHECK(entries.empty());

  std::vector<learn::BenchRecord> identical{{"yosys", 10, {"system", "mimalloc"}, {}}};
  CHECK(learn::adopt_verdict(v, facts(binary(500), true), runs, identical, {}, entries, kResamples).changed);
  CHECK(entries.size() == 1);
}

TEST_CASE("Adopt: nothing is adopted for a binary that is gone", "[adopt]") {
  auto runs = mimalloc_wins();
  auto v = verdict_of(runs);
  std::vector<learn::Learned> entries;
  auto step = learn::adopt_verdict(v, facts(std::nullopt), runs, {}, {}, entries, kResamples);
  CHECK_FALSE(step.changed);
  CHECK(entries.empty());
  CHECK(said(step, "adopt: yosys at /usr/bin/yosys is gone: nothing adopted"));
}

TEST_CASE("Adopt: a re-adoption over a learned arm keeps what that arm replaced", "[adopt]") {
  // jemalloc was learned over system; now mimalloc beats jemalloc (the current choice).
  auto runs = mimalloc_wins();
  auto v = verdict_of(runs);
  std::vector<learn::Learned> entries{learned("jemalloc", "system", binary(400))};
  auto step = learn::adopt_verdict(v, facts(binary(500)), runs, {}, {}, entries, kResamples);
  CHECK(step.changed);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].arm == "mimalloc");
  CHECK(entries[0].replaces == "system");
  CHECK(entries[0].binary == binary(500));

  std::vector<learn::Learned> other{learned("tcmalloc", "system", binary(400))};  // not the current choice
  learn::adopt_verdict(v, facts(binary(500)), runs, {}, {}, other, kResamples);
  REQUIRE(other.size() == 1);
  CHECK(other[0].replaces == "jemalloc");
}

TEST_CASE("Adopt re-check: a learned choice still ahead of what it replaced is kept", "[adopt]") {
  // mimalloc was learned over jemalloc and is now the current choice: nothing beats it.
  std::vector<learn::Run> runs;
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 1000, /*explored=*/true);
  add_runs(runs, "mimalloc", kFour, 12, 0.8, 2000);
  auto v = verdict_of(runs);
  REQUIRE(v.recommended < 0);
  std::vector<learn::Learned> entries{learned("mimalloc", "jemalloc", binary(500))};
  auto step = learn::adopt_verdict(v, facts(binary(500)), runs, {}, {}, entries, kResamples);
  CHECK_FALSE(step.changed);
  REQUIRE(entries.size() == 1);
  CHECK(said(step, "adopt: yosys keeps the learned mimalloc (still 0.80x against jemalloc, CI "));
}

TEST_CASE("Adopt re-check: a learned choice the runs no longer support is dropped", "[adopt]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 1000, /*explored=*/true);
  add_runs(runs, "mimalloc", kFour, 12, 1.0, 2000);  // no faster any more
  auto v = verdict_of(runs);
  REQUIRE(v.recommended < 0);
  std::vector<learn::Learned> entries{learned("mimalloc", "jemalloc", binary(500))};
  auto step = learn::adopt_verdict(v, facts(binary(500)), runs, {}, {}, entries, kResamples);
  CHECK(step.changed);
  CHECK(entries.empty());
  CHECK(said(step, "adopt: dropped the learned mimalloc for yosys: "));
  CHECK(said(step, "not significant"));
}

TEST_CASE("Adopt re-check: the re-check counts only the runs of the current binary", "[adopt]") {
  // Since the binary changed (mtime 1500) only mimalloc ran: the old jemalloc runs do not
  // count, so nothing on this binary supports the learned choice any more.
  std::vector<learn::Run> runs;
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 1000, /*explored=*/true);
  add_runs(runs, "mimalloc", kFour, 12, 1.2, 2000);  // after the change, alone
  auto v = verdict_of(runs);
  std::vector<learn::Learned> entries{learned("mimalloc", "jemalloc", binary(1500))};
  auto step = learn::adopt_verdict(v, facts(binary(1500)), runs, {}, {}, entries, kResamples);
  CHECK(said(step, "48 of 96 runs of yosys predate its binary"));
  CHECK(step.changed);  // mimalloc alone since: no evidence against jemalloc on this binary
  CHECK(entries.empty());
  CHECK(said(step, "thin evidence: 0 runs of mimalloc and 0 of jemalloc over 0 signatures"));
}

TEST_CASE("Adopt re-check: a learned choice is dropped when its binary changed or is gone", "[adopt]") {
  std::vector<learn::Run> runs;
  add_runs(runs, "jemalloc", kFour, 12, 1.0, 1000, /*explored=*/true);
  add_runs(runs, "mimalloc", kFour, 12, 0.8, 2000);
  auto v = verdict_of(runs);
  std::vector<learn::Learned> entries{learned("mimalloc", "jemalloc", binary(500))};
  auto changed_binary = binary(500);
  changed_binary.size = 4097;  // same mtime, another file: changed all the same
  auto step = learn::adopt_verdict(v, facts(changed_binary), runs, {}, {}, entries, kResamples);
  CHECK(step.changed);
  CHECK(entries.empty());
  CHECK(said(step, "adopt: dropped the learned mimalloc for yosys: /usr/bin/yosys changed since it was learned"));

  entries = {learned("mimalloc", "jemalloc", binary(500))};
  step = learn::adopt_verdict(v, facts(std::nullopt), runs, {}, {}, entries, kResamples);
  CHECK(step.changed);
  CHECK(entries.empty());
  CHECK(said(step, "/usr/bin/yosys is gone"));

  std::vector<learn::Learned> elsewhere{learned("mimalloc", "jemalloc", binary(500))};
  elsewhere[0].cpu = "CPU Y";  // another CPU model's choice is not this verdict's
  CHECK_FALSE(learn::adopt_verdict(v, facts(changed_binary), runs, {}, {}, elsewhere, kResamples).changed);
  CHECK(elsewhere.size() == 1);
}

TEST_CASE("Recommend rule: each arm needs the minimum of successful runs, over the minimum of signatures", "[adopt]") {
  learn::Rule rule;
  rule.min_runs = 12;  // 3 runs per signature over 4 signatures
  auto verdict = [&](int candidate_runs, int current_runs, const std::vector<std::string>& signatures) {
    std::vector<learn::Run> runs;
    add_runs(runs, "mimalloc", signatures, candidate_runs, 0.5, 1000, /*explored=*/true);
    add_runs(runs, "jemalloc", signatures, current_runs, 1.0, 2000);
    auto verdicts = learn::recommend(runs, rule, kResamples);
    REQUIRE(verdicts.size() == 1);
    REQUIRE(verdicts[0].candidates.size() == 1);
    return verdicts[0];
  };
  auto thin = [](const learn::Verdict& v) {
    const auto& missing = v.candidates[0].missing;
    return std::any_of(missing.begin(), missing.end(), [](const std::string& m) { return m.rfind("thin evidence", 0) == 0; });
  };
  // 16 runs per arm hold up p and CI; the minimum is the only thing that changes below.
  CHECK_FALSE(thin(verdict(4, 4, kFour)));
  CHECK_FALSE(thin(verdict(3, 4, kFour)));        // 12 of the candidate: exactly the minimum
  CHECK(thin(verdict(3, 4, {"s1", "s2", "s3"})));  // the candidate's 9 runs < 12
  rule.min_runs = 13;
  CHECK(thin(verdict(3, 4, kFour)));  // the candidate's 12 < 13
  CHECK(thin(verdict(4, 3, kFour)));  // the current choice's 12 < 13
  CHECK_FALSE(thin(verdict(4, 4, kFour)));
  rule.min_runs = 4;
  rule.min_signatures = 4;
  CHECK(thin(verdict(4, 4, {"s1", "s2", "s3"})));  // 3 signatures < 4
  CHECK_FALSE(thin(verdict(4, 4, kFour)));
}
