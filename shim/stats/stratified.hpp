#pragma once
// Comparing two arms across strata (the commands a tool ran: "signatures"): van Elteren's
// stratified Wilcoxon-Mann-Whitney test, and a combined median ratio with a two-level bootstrap
// interval. Pure, no I/O, tested against scipy and independent Python formulas.
#include <cstdint>
#include <vector>

#include "stats/bootstrap.hpp"

namespace stats {

// One stratum: the candidate's and the reference's values (e.g. wall seconds of one command).
struct Stratum {
  std::vector<double> candidate, reference;
};

struct VanElteren {
  double statistic = 0;  // T = sum_i W_i / (N_i + 1), W_i the candidate's rank sum in stratum i
  double z = 0;          // (T - E[T]) / sd[T]
  double p = 1;          // one-sided: the candidate tends to be smaller (faster)
  int strata = 0;        // strata that took part (both sides non-empty)
};

// Van Elteren (1960): ranks within each stratum (average ranks for ties), each stratum's
// candidate rank sum weighted by 1/(N_i+1), normal approximation with the tie-corrected
// variance and no continuity correction. With one stratum it is the Mann-Whitney test's normal
// approximation without continuity correction. Strata with an empty side are left out; NaN p
// when none is left or the variance is 0.
VanElteren van_elteren(const std::vector<Stratum>& strata);

// The weight of a stratum in the combined ratio: m n / (m + n), the inverse of the variance
// factor of a difference of two means, so a command run twice counts less than one run 50
// times, and one arm's many runs cannot outweigh the other's few.
double stratum_weight(std::size_t m, std::size_t n);

// Weighted geometric mean over strata of median(candidate) / median(reference), the weights as
// stratum_weight. NaN when no stratum has both sides.
double combined_median_ratio(const std::vector<Stratum>& strata);

// Percentile bootstrap interval of combined_median_ratio, two levels: each resample draws as
// many strata as there are (with replacement), then, within each drawn stratum, its candidate
// values and then its reference values (with replacement), all from one SplitMix64 stream in
// that order. Strata with an empty side are dropped first.
Interval bootstrap_combined_ratio(const std::vector<Stratum>& strata, double level = 0.95, int resamples = 2000,
                                  uint64_t seed = kDefaultSeed);

}  // namespace stats
