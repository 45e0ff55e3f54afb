#pragma once
// `edashim report --recommend`: from the runs a tool made on one CPU model, which arm (allocator
// and options) beats the current choice, by how much, on what evidence, and what is missing when
// nothing does. Pure: runs in, verdicts out; the command reads the log and prints.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "learn/learned.hpp"
#include "stats/bootstrap.hpp"

namespace learn {

// What recommend needs of one run-log line (runlog::RunRecord carries more).
struct Run {
  std::string tool, cpu, signature, arm, path;  // cpu "": unknown
  bool explored = false;                        // the run ran a candidate instead of the current choice
  bool ok = false;                              // exit status 0
  double start_unix = 0, wall_s = 0, max_rss_kb = 0;
  std::string bench_experiment;                 // a bench's run (interleaved with the other arms): its experiment id
};

// The evidence a recommendation needs. The defaults are the documented rule (README).
struct Rule {
  double p_max = 0.01;      // van Elteren, one-sided (candidate faster): p < p_max
  double ci_hi_max = 0.97;  // upper bound of the 95% CI of the combined median ratio < this
  double rss_max = 1.10;    // combined peak-RSS ratio <= this
  std::size_t min_runs = 10, min_signatures = 3;  // successful runs per arm, over signatures
};

// One candidate arm against the current choice, over the signatures both ran successfully.
struct Comparison {
  std::string arm;
  std::size_t runs = 0, current_runs = 0;        // successful runs in the compared signatures
  std::size_t signatures = 0;                    // compared signatures
  // Compared signatures where one bench ran both arms, min_runs successful runs each: a bench's
  // interleaved rounds cancel what the machine and the moment add, so one such signature is
  // evidence enough in place of min_signatures (a bench counts at full weight).
  std::size_t benched_signatures = 0;
  std::size_t failures = 0, current_failures = 0;  // status != 0, over the signatures both ran
  double ratio, p, rss_ratio;                    // candidate / current; NaN when not computable
  stats::Interval ci;
  // Signatures left out: the candidate failed there and the current choice succeeded (a
  // candidate that breaks a command is stopped for that command).
  std::vector<std::string> stopped;
  std::size_t more_failures = 0;       // signatures where it failed more often than the current choice
  std::vector<std::string> missing;    // what the rule lacks, in words; empty: the rule holds
  bool holds() const { return missing.empty(); }
};

// One tool on one CPU model.
struct Verdict {
  std::string tool, cpu;
  std::string current;                 // the arm of the latest non-explored successful run
  std::size_t current_runs = 0;        // all successful runs of it
  std::string path;                    // the tool's path in the latest run
  std::vector<Comparison> candidates;  // best ratio first
  int recommended = -1;                // index into candidates, -1: none
};

// Groups by tool and CPU model and compares every other arm with the current choice.
// `resamples`: bootstrap resamples per comparison (seeded: the same log gives the same CI).
std::vector<Verdict> recommend(const std::vector<Run>& runs, const Rule& rule = {}, int resamples = 2000);

// One arm against another on one tool and CPU model (how a learned choice is re-checked against
// the arm it replaced); nullopt when neither ran there.
std::optional<Comparison> compare_arms(const std::vector<Run>& runs, const std::string& tool, const std::string& cpu,
                                       const std::string& candidate, const std::string& reference, const Rule& rule = {},
                                       int resamples = 2000);

// The rule in one sentence, for the README and the command's output.
std::string rule_text(const Rule& rule);

// The figures' part of the rule, the one both report --recommend and bench --adopt follow: what a
// candidate's wall-time ratio to the current choice, its 95% CI, its one-sided p and its peak-RSS
// ratio lack, in words (empty: they hold). NaN fails the check it is in.
std::vector<std::string> figures_missing(const Rule& rule, double ratio, const stats::Interval& ci, double p,
                                         double rss_ratio);


// A bench's word on a tool's outputs: which allocators gave the reference's outputs.
struct BenchRecord {
  std::string tool;
  double start_unix = 0;
  std::vector<std::string> identical, differing;
};
// Whether the latest bench of `tool` that ran `allocator` found its outputs identical.
bool bench_confirms(const std::vector<BenchRecord>& benches, const std::string& tool, const std::string& allocator);

}  // namespace learn
