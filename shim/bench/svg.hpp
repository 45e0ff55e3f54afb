#pragma once
// Plots as standalone SVG (no scripts, no external fonts), readable in any browser.
#include <string>
#include <string_view>
#include <vector>

#include "bench/analysis.hpp"

namespace bench {

// Run-time distributions per arm (density curve, every run as a dot, the median as a bar)
// above peak-RSS and peak-virtual-size panels of the same shape (the latter, when no arm has
// the figure, replaced by a line saying why).
std::string plot_bench(const std::vector<ArmStats>& arms, const std::string& title, const std::string& subtitle);

// One point of a tuning trade-off.
struct TradeoffPoint {
  std::string label;
  double rss_ratio = 0, wall_ratio = 0;
  bool chosen = false, within_budget = true;
  double vm_ratio = kNoFigure;  // peak virtual size / baseline; NaN when unknown (written in the label)
};
// Median wall ratio against peak-RSS ratio (both vs baseline), with the memory budget drawn.
std::string plot_tradeoff(const std::vector<TradeoffPoint>& points, double max_rss_ratio, const std::string& title);

// Gaussian kernel density at `at`, bandwidth by Silverman's rule of thumb (numbers only, for
// drawing; exposed for tests).
std::vector<double> density(const std::vector<double>& xs, const std::vector<double>& at);

// Text from anywhere (a log another program wrote) as XML character data or an attribute
// value: control characters and invalid UTF-8 as util::printable's \xNN, the characters XML
// forbids (U+FFFE, U+FFFF) likewise, and < > & " ' as entities.
std::string xml_text(std::string_view text);

// Round tick positions covering [lo, hi] (steps of 1, 2 or 5 times a power of ten).
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

}  // namespace bench
