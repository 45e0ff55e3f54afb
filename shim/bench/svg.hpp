#pragma once
// Plots as standalone SVG (no scripts, no external fonts), readable in any browser.
#include <string>
#include <string_view>
#include <vector>

#include "bench/analysis.hpp"
#include "util/svg_text.hpp"

namespace bench {

// Run-time distributions per arm (density curve, every run as a dot, the median as a bar)
// above peak-RSS and peak-virtual-size panels of the same shape (the latter, when no arm has
// the figure, replaced by a line saying why).
// `judged`: the time ratio each arm is judged on (bench::judged: paired over rounds when there
// are enough), the figure the table and the summary show; empty: each arm's median ratio.
std::string plot_bench(const std::vector<ArmStats>& arms, const std::string& title, const std::string& subtitle,
                       const std::vector<double>& judged = {});

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

}  // namespace bench
