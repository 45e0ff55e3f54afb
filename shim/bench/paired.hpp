#pragma once
// A benchmark analysed by round: the runs of one round share a node and a moment (a local bench
// runs a round's arms back to back; a farm runs a round as one task on one node), so each arm is
// compared with the reference (arm 0) within each round, and what the node or the moment adds
// to both cancels. Then the same ratios grouped by node and by CPU model, with a warning when an
// arm's gain depends on the model. Pure: from a Spec and a BenchResult, no I/O, deterministic.
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "bench/spec.hpp"
#include "stats/bootstrap.hpp"
#include "stats/wilcoxon.hpp"

namespace bench {

inline constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN();

// Name of a group of rounds whose runs named no host (or no CPU model), and of a round whose
// runs named more than one.
inline constexpr const char* kUnknownPlace = "unknown";
inline constexpr const char* kMixedPlace = "mixed";

// One round in which both an arm and the reference ran successfully.
struct RoundPair {
  int round = 0;          // as ArmRun::round (0-based)
  std::string host, cpu;  // where the round ran (kUnknownPlace, kMixedPlace)
  double ratio = 0;       // wall(arm) / wall(reference)
  double log_ratio = 0;   // ln(ratio): what the test ranks and the node groups compare
  double rss_ratio = kNoFigure;  // peak RSS(arm) / peak RSS(reference); NaN when either is unknown (0)
  double vm_ratio = kNoFigure;   // peak virtual size(arm) / (reference); NaN when either is unknown
};

// A round left out of an arm's pairs, and why ("jemalloc failed", "no run of baseline").
struct LeftOut {
  int round = 0;
  std::string why;
};

// An arm against the reference, round by round.
struct PairedArm {
  std::string name;
  std::vector<RoundPair> pairs;   // in round order
  std::vector<LeftOut> left_out;  // rounds with a run of either side missing or failed
  double ratio = kNoFigure;       // median of the pairs' ratios (NaN without pairs)
  std::optional<stats::Interval> ci;  // percentile bootstrap 95% of that median, resampling rounds
  stats::Wilcoxon test;           // signed-rank on the log ratios, one-sided, H1: the arm is faster
  double rss_ratio = kNoFigure;   // median of the pairs' RSS ratios (NaN without any)
  double vm_ratio = kNoFigure;    // median of the pairs' peak virtual size ratios (NaN without any)
};

// The rounds that ran on one host, or on one CPU model, and each arm's paired ratio there.
struct NodeGroup {
  std::string name;  // host or CPU model; kUnknownPlace, kMixedPlace
  std::string cpu;   // host groups: the CPU model of its rounds (kMixedPlace when they differ)
  std::size_t rounds = 0;  // rounds with a run there
  struct Arm {
    std::size_t pairs = 0;
    double ratio = kNoFigure;        // median of the ratios of the group's pairs (NaN without)
    std::vector<double> ratios, log_ratios;  // the group's pairs', in round order
  };
  std::vector<Arm> arms;  // per arm, index as Spec::arms; [0] (the reference) left empty
};

struct Paired {
  std::string reference;        // arm 0's name
  std::vector<PairedArm> arms;  // per arm, index as Spec::arms; [0] (the reference) has no pairs
  std::vector<NodeGroup> by_host, by_cpu;  // sorted by name
  std::vector<std::string> warnings;       // an arm's ratio differs by CPU model
};

// Thresholds of the CPU-model warning: two models each with at least kModelMinRounds pairs, a
// two-sided Mann-Whitney p below kModelAlpha between their log ratios, and median ratios more
// than kModelMinGap apart (larger / smaller - 1).
inline constexpr std::size_t kModelMinRounds = 3;
inline constexpr double kModelAlpha = 0.05;
inline constexpr double kModelMinGap = 0.05;

// Runs of one round and arm beyond the first successful one (none in a bench's own outcome)
// are ignored. The bootstrap streams are seeded from spec.seed, one per arm.
Paired analyse_paired(const Spec& spec, const BenchResult& outcome, int bootstrap_resamples = 10000);

}  // namespace bench
