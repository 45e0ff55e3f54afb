#pragma once
// Bootstrap confidence intervals of a median and of a ratio of medians, reproducible from a seed.
#include <cstdint>
#include <vector>

namespace stats {

// A small, fully specified generator (SplitMix64, Steele et al. 2014) rather than a std::
// distribution, whose output differs between standard libraries: the same seed gives the same
// interval everywhere, and the test can recompute it in a few lines of Python.
struct SplitMix64 {
  uint64_t state;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Index in [0, n); the modulo bias is below n / 2^64, far under any statistical effect here.
  std::size_t below(std::size_t n) { return std::size_t(next() % n); }
};

struct Interval {
  double lo = 0, hi = 0;
};

inline constexpr uint64_t kDefaultSeed = 20261130;

// Percentile bootstrap interval of median(y) / median(x): each resample draws len(x) values
// of x with replacement, then len(y) values of y, from one SplitMix64 stream; the bounds are
// the (1-level)/2 and (1+level)/2 quantiles (linear interpolation) of the resampled ratios.
// NaN bounds when either sample is empty.
Interval bootstrap_median_ratio(const std::vector<double>& x, const std::vector<double>& y, double level = 0.95,
                                int resamples = 10000, uint64_t seed = kDefaultSeed);

// Percentile bootstrap interval of median(x): each resample draws len(x) values of x with
// replacement from one SplitMix64 stream; bounds as above. For paired data x holds one value per
// pair (a round's ratio of two runs), so a resample redraws whole pairs and keeps what pairing
// cancels (the node, the moment) cancelled. NaN bounds for an empty sample.
Interval bootstrap_median(const std::vector<double>& x, double level = 0.95, int resamples = 10000,
                          uint64_t seed = kDefaultSeed);

}  // namespace stats
