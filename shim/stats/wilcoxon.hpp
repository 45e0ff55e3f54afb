#pragma once
// Wilcoxon signed-rank test of paired differences, as scipy.stats.wilcoxon (scipy 1.10) computes
// it with zero_method='wilcox' and correction=False, so our p-values can be checked against
// scipy's. Pure, no I/O.
#include <cstddef>
#include <string>
#include <vector>

namespace stats {

// The alternative hypothesis about the differences' location.
enum class SignedRankAlternative {
  less,       // the differences tend to be negative (for log-ratios of run times: the arm is faster)
  two_sided,  // they tend to be either negative or positive
};

enum class SignedRankMethod {
  automatic,  // exact when at most 50 non-zero differences and no ties among them, else approx
  exact,      // the exact null distribution of R+ (valid only without ties)
  approx,     // normal approximation, tie-corrected variance, no continuity correction
  none,       // no test: no non-zero difference (a result, never a request)
};

struct Wilcoxon {
  // R+ (the rank sum of the positive differences) one-sided; min(R+, R-) two-sided, as scipy.
  double statistic = 0;
  double p = 1;                // NaN when method is none
  std::size_t n = 0;           // differences used: the non-zero ones
  std::size_t zeros = 0;       // zero differences dropped (zero_method='wilcox')
  bool ties = false;           // whether |differences| had ties
  SignedRankMethod method = SignedRankMethod::none;
  std::string why_none;        // when method is none: why no test was possible
};

// Drops zero differences, ranks the absolute values of the rest (average ranks for ties) and
// tests their signs. 'automatic' departs from scipy 1.10's 'auto' in two cases: scipy 1.10 keeps
// the exact distribution with ties (truncating a half-integer R+ to an integer, a wrong p) and
// sends any zero to the normal approximation; here ties take the approximation and zeros are
// dropped first, the n <= 50 rule then counting what is left (the textbook conditional test).
// Forcing exact or approx gives scipy 1.10's figures for the same method.
Wilcoxon wilcoxon_signed_rank(const std::vector<double>& differences,
                              SignedRankAlternative alternative = SignedRankAlternative::less,
                              SignedRankMethod method = SignedRankMethod::automatic);

// "exact", "approx" or "none".
const char* method_name(SignedRankMethod method);

}  // namespace stats
