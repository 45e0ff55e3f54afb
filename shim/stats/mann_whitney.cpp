#include "stats/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace stats {
namespace {

// Number of arrangements of m x's and n y's with each value of U, as the coefficients of the
// Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Multiplying
// and dividing in turn keeps every intermediate an integer polynomial ([n+i choose i]_q), so
// 128-bit integers give exact counts; no floating-point cancellation as in a product form.
std::vector<__int128> u_counts(int m, int n) {
  if (m > n) std::swap(m, n);  // the distribution is the same; fewer passes
  std::size_t len = std::size_t(m) * std::size_t(n) + 1;
  std::vector<__int128> c(len, 0);
  c[0] = 1;
  std::size_t deg = 0;
  for (int i = 1; i <= m; ++i) {
    std::size_t a = std::size_t(n + i);
    deg += std::size_t(n);
    for (std::size_t k = deg; k >= a && k < len; --k) c[k] -= c[k - a];  // * (1 - q^a)
    std::size_t b = std::size_t(i);
    for (std::size_t k = b; k <= deg; ++k) c[k] += c[k - b];             // / (1 - q^b)
  }
  return c;
}

// Whether C(m+n, m) fits comfortably in 127 bits, so u_counts cannot overflow.
bool exact_feasible(int m, int n) {
  double log2_total = (std::lgamma(m + n + 1.0) - std::lgamma(m + 1.0) - std::lgamma(n + 1.0)) / std::log(2.0);
  return log2_total < 120 && double(m) * double(n) < 4e6;
}

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

double mann_whitney_exact_cdf(long k, int m, int n) {
  if (k < 0) return 0;
  if (k >= long(m) * long(n)) return 1;
  auto c = u_counts(m, n);
  __int128 total = 0, below = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    total += c[i];
    if (long(i) <= k) below += c[i];
  }
  return double(static_cast<long double>(below) / static_cast<long double>(total));
}

MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y, Alternative alt,
                           Method method) {
  MannWhitney r;
  const std::size_t n1 = x.size(), n2 = y.size();
  if (n1 == 0 || n2 == 0) {
    r.p = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  // Average ranks of the pooled sample (scipy.stats.rankdata 'average').
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(n1 + n2);
  for (double v : x) pooled.emplace_back(v, 0);
  for (double v : y) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    double t = double(j - i);
    double avg_rank = (double(i + 1) + double(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_x += avg_rank;
    if (t > 1) {
      r.ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double dn1 = double(n1), dn2 = double(n2), n = dn1 + dn2;
  const double u1 = rank_sum_x - dn1 * (dn1 + 1) / 2;
  const double u2 = dn1 * dn2 - u1;
  r.u = u1;
  // scipy: 'greater' tests U1 in the upper tail, 'less' tests U2 in the upper tail, two-sided
  // the larger of them, doubled below.
  const double u = alt == Alternative::greater ? u1 : alt == Alternative::less ? u2 : std::max(u1, u2);

  bool use_exact = method == Method::exact;
  if (method == Method::automatic) use_exact = (n1 <= 8 || n2 <= 8) && !r.ties;
  if (use_exact && !exact_feasible(int(n1), int(n2))) use_exact = false;
  r.exact = use_exact;
  if (use_exact) {
    // P(U >= u), summed over the upper tail itself: 1 - cdf would lose tiny p-values.
    auto c = u_counts(int(n1), int(n2));
    __int128 total = 0, tail = 0;
    long k0 = long(std::llround(u));
    for (std::size_t i = 0; i < c.size(); ++i) {
      total += c[i];
      if (long(i) >= k0) tail += c[i];
    }
    r.p = double(static_cast<long double>(tail) / static_cast<long double>(total));
  } else {
    double mu = dn1 * dn2 / 2;
    double s = std::sqrt(dn1 * dn2 / 12 * ((n + 1) - tie_term / (n * (n - 1))));
    double z = (u - mu - 0.5) / s;  // continuity correction, as scipy's use_continuity=True
    r.p = s > 0 ? normal_sf(z) : std::numeric_limits<double>::quiet_NaN();
  }
  if (alt == Alternative::two_sided) r.p *= 2;
  r.p = std::clamp(r.p, 0.0, 1.0);
  return r;
}

}  // namespace stats
