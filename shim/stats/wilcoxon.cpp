#include "stats/wilcoxon.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace stats {
namespace {

// Largest n whose exact distribution is used by 'automatic', as scipy.
constexpr std::size_t kExactMax = 50;

// Number of sign assignments of ranks 1..n with each value of R+ (the coefficients of
// prod_i (1 + q^i)). 2^n of them in all: n <= 63 fits in 64 bits exactly, and scipy's own
// distribution is built the same way.
std::vector<uint64_t> r_plus_counts(std::size_t n) {
  std::vector<uint64_t> c(n * (n + 1) / 2 + 1, 0);
  c[0] = 1;
  std::size_t top = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    top += i;
    for (std::size_t k = top; k >= i; --k) c[k] += c[k - i];
  }
  return c;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

const char* method_name(SignedRankMethod m) {
  switch (m) {
    case SignedRankMethod::exact: return "exact";
    case SignedRankMethod::approx: return "approx";
    case SignedRankMethod::automatic: return "auto";
    case SignedRankMethod::none: break;
  }
  return "none";
}

Wilcoxon wilcoxon_signed_rank(const std::vector<double>& differences, SignedRankAlternative alt,
                              SignedRankMethod method) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Wilcoxon r;
  std::vector<double> d;
  for (double v : differences) {
    if (v == 0) ++r.zeros;
    else d.push_back(v);
  }
  r.n = d.size();
  if (d.empty()) {
    r.p = nan;
    r.statistic = nan;
    r.why_none = differences.empty() ? "no differences"
                                     : "every difference is zero (" + std::to_string(r.zeros) + "): nothing to rank";
    return r;
  }
  // Average ranks of |d| (scipy.stats.rankdata 'average'), and the tie term sum(t^3 - t).
  std::vector<std::size_t> order(d.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::fabs(d[a]) < std::fabs(d[b]); });
  double r_plus = 0, r_minus = 0, tie_term = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && std::fabs(d[order[j]]) == std::fabs(d[order[i]])) ++j;
    double t = double(j - i), rank = (double(i + 1) + double(j)) / 2;
    for (std::size_t k = i; k < j; ++k) (d[order[k]] > 0 ? r_plus : r_minus) += rank;
    if (t > 1) {
      r.ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const bool two_sided = alt == SignedRankAlternative::two_sided;
  r.statistic = two_sided ? std::min(r_plus, r_minus) : r_plus;
  if (method == SignedRankMethod::automatic || method == SignedRankMethod::none)
    method = r.n <= kExactMax && !r.ties ? SignedRankMethod::exact : SignedRankMethod::approx;
  if (method == SignedRankMethod::exact && r.n > 63) method = SignedRankMethod::approx;  // 2^n overflows
  r.method = method;
  const double n = double(r.n);
  if (method == SignedRankMethod::exact) {
    auto c = r_plus_counts(r.n);
    // As scipy: R+ truncated to an integer (it is one without ties), tails summed directly
    // rather than 1 - cdf, so a tiny p keeps its digits.
    auto k = std::size_t(r_plus);
    long double total = std::ldexp(1.0L, int(r.n)), below = 0, above = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (i <= k) below += c[i];
      if (i >= k) above += c[i];
    }
    double p_less = double(below / total), p_greater = double(above / total);
    if (!two_sided) r.p = p_less;
    else if (k == (c.size() - 1) / 2) r.p = 1;  // R+ at the centre (scipy's rule)
    else r.p = 2 * std::min(p_less, p_greater);
  } else {
    double mean = n * (n + 1) / 4;
    double var = (n * (n + 1) * (2 * n + 1) - tie_term / 2) / 24;
    double se = std::sqrt(var);
    double z = (r.statistic - mean) / se;
    if (!(se > 0)) r.p = nan;
    else r.p = two_sided ? 2 * normal_sf(std::fabs(z)) : normal_cdf(z);
  }
  if (!std::isnan(r.p)) r.p = std::clamp(r.p, 0.0, 1.0);
  return r;
}

}  // namespace stats
