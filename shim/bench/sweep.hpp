#pragma once
// The pure side of `edashim tune`: option specs, candidate profiles, and the rule that decides
// whether a measured setting replaces the current one. A setting replaces it only on evidence,
// by the figures bench reports: one-sided Mann-Whitney p below kAlpha and the bootstrap 95%
// interval of the median ratio wholly below 1. Anything less is noise, and noise changes nothing.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stats/bootstrap.hpp"
#include "stats/mann_whitney.hpp"
#include "util/result.hpp"

namespace bench {

// --option FAMILY.KEY=V1,V2,...
struct TuneOption {
  std::string family, key;
  std::vector<std::string> values;
};
util::Result<TuneOption> parse_tune_option(const std::string& text);

// A value as TOML: integers, floats and booleans bare, anything else a quoted string.
std::string toml_value(const std::string& text);

// The profile file for one candidate: allocator plus its options, grouped by family.
std::string profile_toml(const std::string& allocator,
                         const std::map<std::string, std::map<std::string, std::string>>& options);

// The significance level of the one-sided test.
inline constexpr double kAlpha = 0.05;

// Whether a candidate is faster than what it would replace, and why (or why not), in words.
struct Evidence {
  bool faster = false;
  std::optional<double> p;            // one-sided Mann-Whitney U, H1: the candidate is faster
  std::optional<stats::Interval> ci;  // bootstrap 95% of median(candidate) / median(current)
  std::string why;                    // "p 0.0040 < 0.05, CI 0.31-0.45 < 1" / "p 0.5000, not < 0.05"
};

// The rule, on figures already computed (as `edashim bench` reports them).
Evidence judge(const std::optional<stats::MannWhitney>& test, const std::optional<stats::Interval>& ci);

// The rule on two samples of wall times, computed as bench::analyse does.
Evidence weigh(const std::vector<double>& candidate, const std::vector<double>& current, uint64_t seed,
               int resamples = 2000);

// The smallest one-sided p the exact test can give with n runs against m: 1 / C(n+m, n). When
// it is not below kAlpha, no measurement of that size can show a difference.
double smallest_p(std::size_t n, std::size_t m);

// One candidate of a sweep step. Index 0 of a step is the current setting (the option unset,
// earlier steps' choices fixed); ratios are to baseline, measured in the same interleaved bench.
struct Candidate {
  std::string value;  // "" = the option left at the allocator's default
  double median_s = 0, wall_ratio = 0, rss_ratio = 0;
  std::size_t ok = 0;
  Evidence vs_current;  // against candidate 0 (unset for candidate 0)
  double vm_ratio = std::numeric_limits<double>::quiet_NaN();  // peak virtual size / baseline; NaN: unknown
};

// The memory budgets, each relative to baseline: --max-rss-ratio, --max-vm-ratio, either or both.
struct Budget {
  std::optional<double> max_rss_ratio, max_vm_ratio;
  // Every budget given holds. A figure that is unknown (NaN: peak virtual size without the
  // probe) breaks a budget given on it: an unmeasured figure is not within anything.
  bool holds(const Candidate& c) const;
  // "peak RSS <= 1.05x baseline and peak virtual size <= 1.10x baseline"; "none" without budgets.
  std::string describe() const;
  // Why `c` is over: "peak RSS 1.200x > 1.05x; peak virtual size unknown (no probe)"; "" when within.
  std::string over(const Candidate& c) const;
  // How far over, summed over the budgets given: each figure's share over its budget (peak RSS
  // 1.26x against 1.05x is 0.2); 0 within every budget; infinity for an unknown figure under a
  // budget. A sum, so that a step which brings one figure down counts while the other stays over.
  double excess(const Candidate& c) const;
};

// A candidate closer to the budget than the current setting by less than this (in excess, i.e.
// a share of the budget) is noise in the memory figures, not a move towards it.
inline constexpr double kCloserBy = 0.01;

// The candidate a step keeps: among those within the budget that are faster than the
// current setting on the evidence, the least median; else the current setting. When the current
// setting is itself over the budget, memory decides: the fastest candidate within it; if none is
// within, the one closest to it (least excess, by at least kCloserBy), so that a coordinate
// search can reach the budget in several steps that each get nearer, as the seed's sweep did.
// `within`: the kept candidate is within the budget. nullopt when no candidate has a successful run.
std::optional<std::size_t> choose(const std::vector<Candidate>& candidates, const Budget& budget, bool& within);

}  // namespace bench
