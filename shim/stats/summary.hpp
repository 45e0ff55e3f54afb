#pragma once
// Descriptive statistics of a sample: pure functions, no I/O, tested against numpy.
#include <cstddef>
#include <vector>

namespace stats {

// Arithmetic mean; NaN for an empty sample.
double mean(const std::vector<double>& xs);

// Quantile q in [0, 1] of an already sorted sample by linear interpolation between order
// statistics: h = (n-1)q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). This is
// numpy.percentile/quantile's default ("linear", Hyndman & Fan type 7, R's default).
// NaN for an empty sample.
double quantile_sorted(const std::vector<double>& sorted, double q);

// The same on an unsorted sample (sorts a copy).
double quantile(std::vector<double> xs, double q);

// Median (the 0.5 quantile: the mean of the two middle values for an even count).
double median(std::vector<double> xs);

// What the reports print about a sample of run times or sizes.
struct Summary {
  std::size_t n = 0;
  double mean = 0, median = 0, p5 = 0, p95 = 0, min = 0, max = 0;
};
Summary summarize(std::vector<double> xs);

}  // namespace stats
