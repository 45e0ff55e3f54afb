#pragma once
// Mann-Whitney U test of two independent samples, as scipy.stats.mannwhitneyu (scipy 1.10)
// computes it, so that our p-values can be checked against scipy's.
#include <vector>

namespace stats {

// The alternative hypothesis about x relative to y.
enum class Alternative {
  less,     // x tends to be smaller than y (for run times: x is faster)
  greater,  // x tends to be larger than y
  two_sided,  // either: twice the upper tail of max(U of x, U of y), capped at 1, as scipy
};

enum class Method {
  automatic,   // exact when either sample has at most 8 values and there are no ties (scipy's 'auto')
  exact,       // the exact null distribution of U (valid only without ties)
  asymptotic,  // normal approximation, tie-corrected variance, continuity correction
};

struct MannWhitney {
  double u = 0;        // U of x: pairs (xi, yj) with xi > yj, ties counting 1/2 (scipy's statistic)
  double p = 1;        // p-value of the alternative asked for
  bool exact = false;  // which method produced p
  bool ties = false;   // whether the pooled sample had ties
};

// NaN p for an empty sample.
MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                           Alternative alternative = Alternative::less, Method method = Method::automatic);

// P(U <= k) under the null hypothesis for sample sizes m and n (no ties), exactly.
double mann_whitney_exact_cdf(long k, int m, int n);

}  // namespace stats
