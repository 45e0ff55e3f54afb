#include "learn/recommend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "stats/stratified.hpp"
#include "util/table.hpp"

namespace learn {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per signature, per arm: successful runs' wall time and peak RSS, and the failure count.
struct Cell {
  std::vector<double> wall, rss;
  std::size_t failures = 0;
  std::map<std::string, std::size_t> bench_runs;  // experiment -> its successful runs here
};

// Whether one bench ran both cells' arms, `min_runs` successful runs each.
bool benched(const Cell& a, const Cell& b, std::size_t min_runs) {
  for (const auto& [experiment, n] : a.bench_runs) {
    auto other = b.bench_runs.find(experiment);
    if (n >= min_runs && other != b.bench_runs.end() && other->second >= min_runs) return true;
  }
  return false;
}
using BySignature = std::map<std::string, std::map<std::string, Cell>>;  // signature -> arm -> cell

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

Comparison compare(const BySignature& cells, const std::string& arm, const std::string& current, const Rule& rule,
                   int resamples) {
  Comparison c;
  c.arm = arm;
  c.ratio = c.p = c.rss_ratio = kNaN;
  std::vector<stats::Stratum> wall, rss;
  for (const auto& [signature, arms] : cells) {
    auto a = arms.find(arm), b = arms.find(current);
    if (a == arms.end() || b == arms.end()) continue;
    const Cell &cand = a->second, &cur = b->second;
    c.failures += cand.failures;
    c.current_failures += cur.failures;
    if (cand.failures > cur.failures) ++c.more_failures;
    if (cand.failures > 0 && !cur.wall.empty()) {
      c.stopped.push_back(signature);
      continue;
    }
    if (cand.wall.empty() || cur.wall.empty()) continue;
    ++c.signatures;
    if (benched(cand, cur, rule.min_runs)) ++c.benched_signatures;
    c.runs += cand.wall.size();
    c.current_runs += cur.wall.size();
    wall.push_back({cand.wall, cur.wall});
    rss.push_back({cand.rss, cur.rss});
  }
  if (!wall.empty()) {
    c.ratio = stats::combined_median_ratio(wall);
    c.rss_ratio = stats::combined_median_ratio(rss);
    c.p = stats::van_elteren(wall).p;
    c.ci = stats::bootstrap_combined_ratio(wall, 0.95, resamples);
  } else {
    c.ci = {kNaN, kNaN};
  }
  // What is missing, most basic first.
  bool thin = c.runs < rule.min_runs || c.current_runs < rule.min_runs || c.signatures < rule.min_signatures;
  if (thin && c.benched_signatures == 0)
    c.missing.push_back("thin evidence: " + plural(c.runs, "run") + " of " + arm + " and " + std::to_string(c.current_runs) +
                        " of " + current + " over " + plural(c.signatures, "signature") + " (needs >= " +
                        std::to_string(rule.min_runs) + " runs per arm over >= " + std::to_string(rule.min_signatures) +
                        " signatures, or one bench of both with >= " + std::to_string(rule.min_runs) + " runs each)");
  if (!c.stopped.empty())
    c.missing.push_back("stopped on " + plural(c.stopped.size(), "signature") + ": failed where " + current +
                        " succeeded (left out of the comparison)");
  if (c.more_failures)
    c.missing.push_back("more failures than " + current + " on " + plural(c.more_failures, "signature"));
  if (!wall.empty())
    for (auto& m : figures_missing(rule, c.ratio, c.ci, c.p, c.rss_ratio)) c.missing.push_back(std::move(m));
  return c;
}

}  // namespace

std::vector<Verdict> recommend(const std::vector<Run>& runs, const Rule& rule, int resamples) {
  // tool, cpu -> the runs' cells, and the latest non-explored successful run (the current choice).
  struct Group {
    BySignature cells;
    std::set<std::string> arms;
    double latest = -1;
    std::string current, path;
    double latest_any = -1;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const auto& r : runs) {
    Group& g = groups[{r.tool, r.cpu}];
    Cell& cell = g.cells[r.signature][r.arm];
    g.arms.insert(r.arm);
    if (r.start_unix >= g.latest_any) {
      g.latest_any = r.start_unix;
      g.path = r.path;
    }
    if (!r.ok) {
      ++cell.failures;
      continue;
    }
    cell.wall.push_back(r.wall_s);
    cell.rss.push_back(r.max_rss_kb);
    if (!r.bench_experiment.empty()) ++cell.bench_runs[r.bench_experiment];
    if (!r.explored && r.start_unix >= g.latest) {
      g.latest = r.start_unix;
      g.current = r.arm;
    }
  }
  std::vector<Verdict> out;
  for (auto& [key, g] : groups) {
    Verdict v;
    v.tool = key.first;
    v.cpu = key.second;
    v.current = g.current;
    v.path = g.path;
    if (!g.current.empty()) {
      for (const auto& [sig, arms] : g.cells)
        if (auto it = arms.find(g.current); it != arms.end()) v.current_runs += it->second.wall.size();
      for (const auto& arm : g.arms)
        if (arm != g.current) v.candidates.push_back(compare(g.cells, arm, g.current, rule, resamples));
    }
    // Best first; a comparison without a ratio last.
    std::stable_sort(v.candidates.begin(), v.candidates.end(), [](const Comparison& a, const Comparison& b) {
      return std::tuple(std::isnan(a.ratio), a.ratio) < std::tuple(std::isnan(b.ratio), b.ratio);
    });
    for (std::size_t i = 0; i < v.candidates.size(); ++i)
      if (v.candidates[i].holds()) {
        v.recommended = int(i);
        break;
      }
    out.push_back(std::move(v));
  }
  return out;
}

std::optional<Comparison> compare_arms(const std::vector<Run>& runs, const std::string& tool, const std::string& cpu,
                                       const std::string& candidate, const std::string& reference, const Rule& rule,
                                       int resamples) {
  BySignature cells;
  bool any = false;
  for (const auto& r : runs) {
    if (r.tool != tool || r.cpu != cpu || (r.arm != candidate && r.arm != reference)) continue;
    any = true;
    Cell& cell = cells[r.signature][r.arm];
    if (!r.ok) {
      ++cell.failures;
      continue;
    }
    cell.wall.push_back(r.wall_s);
    cell.rss.push_back(r.max_rss_kb);
    if (!r.bench_experiment.empty()) ++cell.bench_runs[r.bench_experiment];
  }
  if (!any) return std::nullopt;
  return compare(cells, candidate, reference, rule, resamples);
}

std::vector<std::string> figures_missing(const Rule& rule, double ratio, const stats::Interval& ci, double p,
                                         double rss_ratio) {
  std::vector<std::string> missing;
  if (!(ci.hi < rule.ci_hi_max))
    missing.push_back(std::string(ci.lo >= 1 ? "slower" : ci.lo < rule.ci_hi_max ? "mixed" : "no clear gain") + ": " +
                      util::fixed(ratio, 2) + "x, CI " + util::fixed(ci.lo, 2) + "-" + util::fixed(ci.hi, 2) +
                      " (needs upper bound < " + util::fixed(rule.ci_hi_max, 2) + ")");
  if (!(p < rule.p_max)) missing.push_back("not significant: p " + util::fixed(p, 3) + " (needs < " + util::fixed(rule.p_max, 2) + ")");
  if (!(rss_ratio <= rule.rss_max))
    missing.push_back("peak RSS " + util::fixed(rss_ratio, 3) + "x over the budget " + util::fixed(rule.rss_max, 2) + "x");
  return missing;
}

std::string rule_text(const Rule& rule) {
  return "a candidate is recommended only when it is faster than the current choice with p < " + util::fixed(rule.p_max, 2) +
         " (van Elteren's stratified Wilcoxon-Mann-Whitney test over the command signatures, one-sided), the upper bound "
         "of the 95% bootstrap CI of its median wall-time ratio is below " + util::fixed(rule.ci_hi_max, 2) +
         ", its peak-RSS ratio is at most " + util::fixed(rule.rss_max, 2) +
         ", it failed no more often than the current choice on any signature (and never where the current choice "
         "succeeded), and each arm has at least " + std::to_string(rule.min_runs) + " successful runs over at least " +
         std::to_string(rule.min_signatures) + " signatures, or one bench (edashim bench) ran both with at least " +
         std::to_string(rule.min_runs) + " successful runs each";
}

bool bench_confirms(const std::vector<BenchRecord>& benches, const std::string& tool, const std::string& allocator) {
  const BenchRecord* latest = nullptr;
  for (const auto& b : benches) {
    if (b.tool != tool) continue;
    bool ran = std::count(b.identical.begin(), b.identical.end(), allocator) ||
               std::count(b.differing.begin(), b.differing.end(), allocator);
    if (ran && (!latest || b.start_unix >= latest->start_unix)) latest = &b;
  }
  return latest && std::count(latest->identical.begin(), latest->identical.end(), allocator) &&
         !std::count(latest->differing.begin(), latest->differing.end(), allocator);
}

}  // namespace learn
