#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stats {

double mean(const std::vector<double>& xs) {
  if (xs.empty()) return std::numeric_limits<double>::quiet_NaN();
  // Kahan summation: a million run times should not lose their last digits.
  double sum = 0, c = 0;
  for (double x : xs) {
    double y = x - c, t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum / double(xs.size());
}

double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  double h = double(s.size() - 1) * q;
  auto lo = std::size_t(std::floor(h));
  if (lo + 1 >= s.size()) return s.back();
  double frac = h - double(lo);
  // numpy's _lerp form, so results agree to the last bit where possible.
  double diff = s[lo + 1] - s[lo];
  return frac >= 0.5 ? s[lo + 1] - diff * (1 - frac) : s[lo] + diff * frac;
}

double quantile(std::vector<double> xs, double q) {
  std::sort(xs.begin(), xs.end());
  return quantile_sorted(xs, q);
}

double median(std::vector<double> xs) {
  if (xs.empty()) return std::numeric_limits<double>::quiet_NaN();
  // nth_element instead of a full sort: report computes many medians of large groups.
  std::size_t mid = xs.size() / 2;
  std::nth_element(xs.begin(), xs.begin() + std::ptrdiff_t(mid), xs.end());
  double hi = xs[mid];
  if (xs.size() % 2 == 1) return hi;
  double lo = *std::max_element(xs.begin(), xs.begin() + std::ptrdiff_t(mid));
  return (lo + hi) / 2;  // as numpy.median (the mean of the two middle values)
}

Summary summarize(std::vector<double> xs) {
  Summary s;
  s.n = xs.size();
  s.mean = mean(xs);
  std::sort(xs.begin(), xs.end());
  s.median = quantile_sorted(xs, 0.5);
  s.p5 = quantile_sorted(xs, 0.05);
  s.p95 = quantile_sorted(xs, 0.95);
  s.min = xs.empty() ? std::numeric_limits<double>::quiet_NaN() : xs.front();
  s.max = xs.empty() ? std::numeric_limits<double>::quiet_NaN() : xs.back();
  return s;
}

}  // namespace stats
