#include "stats/stratified.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/summary.hpp"

namespace stats {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<const Stratum*> usable(const std::vector<Stratum>& strata) {
  std::vector<const Stratum*> out;
  for (const auto& s : strata)
    if (!s.candidate.empty() && !s.reference.empty()) out.push_back(&s);
  return out;
}

double weighted_log_ratio(const std::vector<const Stratum*>& strata) {
  double sum = 0, weights = 0;
  for (const auto* s : strata) {
    double w = stratum_weight(s->candidate.size(), s->reference.size());
    sum += w * std::log(median(s->candidate) / median(s->reference));
    weights += w;
  }
  return weights > 0 ? sum / weights : kNaN;
}

}  // namespace

double stratum_weight(std::size_t m, std::size_t n) {
  return m + n ? double(m) * double(n) / double(m + n) : 0;
}

VanElteren van_elteren(const std::vector<Stratum>& strata) {
  VanElteren r;
  double t = 0, mean = 0, var = 0;
  for (const auto* s : usable(strata)) {
    ++r.strata;
    const double m = double(s->candidate.size()), n = double(s->reference.size()), big_n = m + n;
    std::vector<std::pair<double, int>> pooled;
    for (double v : s->candidate) pooled.emplace_back(v, 0);
    for (double v : s->reference) pooled.emplace_back(v, 1);
    std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    double rank_sum = 0, ties = 0;
    for (std::size_t i = 0; i < pooled.size();) {
      std::size_t j = i;
      while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
      double avg = (double(i + 1) + double(j)) / 2, k = double(j - i);
      for (std::size_t q = i; q < j; ++q)
        if (pooled[q].second == 0) rank_sum += avg;
      ties += k * k * k - k;
      i = j;
    }
    const double w = 1 / (big_n + 1);
    t += w * rank_sum;
    mean += w * m * (big_n + 1) / 2;
    // Var(W_i) = m n / 12 * ((N+1) - sum(t^3 - t) / (N (N-1))); N = 1 cannot occur (both sides).
    var += w * w * m * n / 12 * ((big_n + 1) - ties / (big_n * (big_n - 1)));
  }
  r.statistic = t;
  if (r.strata == 0 || !(var > 0)) {
    r.p = kNaN;
    return r;
  }
  r.z = (t - mean) / std::sqrt(var);
  r.p = 0.5 * std::erfc(-r.z / std::sqrt(2.0));  // lower tail: Phi(z)
  return r;
}

double combined_median_ratio(const std::vector<Stratum>& strata) {
  return std::exp(weighted_log_ratio(usable(strata)));
}

Interval bootstrap_combined_ratio(const std::vector<Stratum>& strata, double level, int resamples, uint64_t seed) {
  auto used = usable(strata);
  if (used.empty() || resamples <= 0) return {kNaN, kNaN};
  SplitMix64 rng(seed);
  std::vector<Stratum> drawn(used.size());
  std::vector<const Stratum*> view(used.size());
  std::vector<double> ratios;
  ratios.reserve(std::size_t(resamples));
  for (int b = 0; b < resamples; ++b) {
    for (std::size_t i = 0; i < used.size(); ++i) {
      const Stratum& s = *used[rng.below(used.size())];
      drawn[i].candidate.resize(s.candidate.size());
      drawn[i].reference.resize(s.reference.size());
      for (auto& v : drawn[i].candidate) v = s.candidate[rng.below(s.candidate.size())];
      for (auto& v : drawn[i].reference) v = s.reference[rng.below(s.reference.size())];
      view[i] = &drawn[i];
    }
    ratios.push_back(std::exp(weighted_log_ratio(view)));
  }
  std::sort(ratios.begin(), ratios.end());
  double alpha = (1 - level) / 2;
  return {quantile_sorted(ratios, alpha), quantile_sorted(ratios, 1 - alpha)};
}

}  // namespace stats
