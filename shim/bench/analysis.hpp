#pragma once
// From a benchmark's runs to per-arm statistics and their renderings: pure, unit-tested.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/outputs.hpp"
#include "bench/paired.hpp"
#include "bench/spec.hpp"
#include "stats/bootstrap.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/summary.hpp"
#include "util/table.hpp"

namespace bench {

struct ArmStats {
  std::string name, profile;
  std::string arm_id;  // the arm as its first successful run's log line names it ("jemalloc[narenas=4]")
  std::size_t ok = 0, failed = 0;
  std::vector<std::string> failures;  // one line per failed run
  std::vector<double> wall, rss_kb;   // successful runs, in run order
  stats::Summary wall_s;
  double wall_sd = 0;                 // sample standard deviation (n - 1), NaN below two runs
  std::vector<double> user_sys;       // successful runs' user + system CPU seconds, in run order
  // Each statistic divided by the first arm's same statistic (1 for the first arm).
  double mean_ratio = 1, median_ratio = 1, p5_ratio = 1, p95_ratio = 1;
  // Against the first arm (absent for the first arm): H1 "this arm's times are smaller".
  std::optional<stats::MannWhitney> test;
  std::optional<stats::Interval> median_ratio_ci;  // bootstrap 95%
  double rss_median_kb = 0, rss_ratio = 1;
  // Peak virtual size: each successful run's largest VmPeak over its processes (the probe's);
  // median over the runs that have one, NaN when none has (then the ratio is NaN too).
  std::vector<double> vm_kb;          // successful runs with a figure, in run order
  double vm_median_kb = 0, vm_ratio = 1;
  std::size_t unprobed = 0;           // successful runs without the probe's records
  std::optional<double> verified_share;
  // --compare-outputs: a verdict per output, and the summary of them ("reference", "identical",
  // "differs: net.v", "varies between runs: stdout", "missing: net.place").
  std::map<std::string, OutputVerdict> outputs;
  std::string outputs_summary;
  std::size_t env_bytes = 0;
};

std::vector<ArmStats> analyse(const Spec& spec, const BenchResult& outcome, int bootstrap_resamples = 10000);

// --compare-outputs as a table: a row per output, a column per arm, a verdict per cell.
util::Table outputs_table(const Spec& spec, const std::vector<ArmStats>& arms);

// compact: value and ratio in one cell ("4.210 (0.85x)") for --wide and Markdown (no p-value
// column: the paired table's Wilcoxon p is the one said); otherwise one column each, for CSV,
// whose Mann-Whitney columns are named for it (mann_whitney_p_faster).
util::Table bench_table(const std::vector<ArmStats>& arms, bool compare_outputs, bool compact);

// The terminal's default table, for an 100-column terminal: per arm, runs ok out of all, mean ±
// σ, min - max, the median ratio with its bootstrap 95% CI (what the verdict reads), the one
// p-value (`paired`'s Wilcoxon signed-rank on the rounds) and peak RSS. No VM, verified or
// outputs column: --wide and the exports have them (the outputs have a table of their own).
util::Table narrow_table(const std::vector<ArmStats>& arms, const Paired& paired);

// The paired analysis as a table: a row per arm but the reference (pairs, paired ratio, CI,
// Wilcoxon p, RSS ratio).
util::Table paired_table(const Paired& paired);

// Per-node breakdown: a row per host (its CPU model, rounds, each arm's paired ratio and pairs),
// and a row per CPU model.
util::Table hosts_table(const Paired& paired);
util::Table cpus_table(const Paired& paired);

// Whether the rounds ran on more than one host or CPU model (a farm), so the breakdown says
// something a local bench's would not.
bool several_nodes(const Paired& paired);

// Everything, including every run's raw figures, the paired analysis ("paired") and the
// per-node breakdown ("by_node").
std::string bench_json(const Spec& spec, const BenchResult& outcome, const std::vector<ArmStats>& arms);

// Why some arm shows no peak virtual size ("-"), said once; "" when every arm with a
// successful run has one.
std::string vm_note(const std::vector<ArmStats>& arms);

// Sample standard deviation (n - 1 in the denominator, as hyperfine); NaN below two values.
double sample_sd(const std::vector<double>& xs);

// Ratio as "0.85x", "-" for NaN.
std::string ratio(double r);

}  // namespace bench
