#include "stats/bootstrap.hpp"

#include <algorithm>
#include <limits>

#include "stats/summary.hpp"

namespace stats {

Interval bootstrap_median_ratio(const std::vector<double>& x, const std::vector<double>& y, double level,
                                int resamples, uint64_t seed) {
  if (x.empty() || y.empty() || resamples <= 0) {
    double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
  }
  SplitMix64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(std::size_t(resamples));
  std::vector<double> rx(x.size()), ry(y.size());
  for (int b = 0; b < resamples; ++b) {
    for (auto& v : rx) v = x[rng.below(x.size())];
    for (auto& v : ry) v = y[rng.below(y.size())];
    ratios.push_back(median(ry) / median(rx));
  }
  std::sort(ratios.begin(), ratios.end());
  double alpha = (1 - level) / 2;
  return {quantile_sorted(ratios, alpha), quantile_sorted(ratios, 1 - alpha)};
}

Interval bootstrap_median(const std::vector<double>& x, double level, int resamples, uint64_t seed) {
  if (x.empty() || resamples <= 0) {
    double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan};
  }
  SplitMix64 rng(seed);
  std::vector<double> medians;
  medians.reserve(std::size_t(resamples));
  std::vector<double> rx(x.size());
  for (int b = 0; b < resamples; ++b) {
    for (auto& v : rx) v = x[rng.below(x.size())];
    medians.push_back(median(rx));
  }
  std::sort(medians.begin(), medians.end());
  double alpha = (1 - level) / 2;
  return {quantile_sorted(medians, alpha), quantile_sorted(medians, 1 - alpha)};
}

}  // namespace stats
