#pragma once
// Exploration (`explore = 0.1`): a share of a tool's runs uses a candidate profile instead of
// the current choice, so that normal use measures the alternatives. The decision, pure: the
// random numbers come from the caller (pipeline/explore.cpp draws them from getrandom).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace learn {

// What the run knows that may rule exploration out.
struct ExploreGate {
  double share = 0;                   // `explore`
  size_t candidates = 0;              // entries of `explore_profiles`
  std::string explicit_choice;        // "--profile", "EDASHIM_ALLOCATOR"...: the user chose; empty: none
  std::optional<std::string> switch_value;  // EDASHIM_EXPLORE as set, or nullopt
  std::string preflight_blocker;      // the pre-flight says a preload cannot work (or is left out)
  std::string preloaded_by_caller;    // the caller's own allocator in LD_PRELOAD
  bool config_errors = false;         // the run goes plain anyway
  bool logged = true;                 // false: log = "off", nothing would record the experiment
};

// Why this run cannot explore ("" when it may): said by `explain`, never on a run's stderr.
std::string why_not_explore(const ExploreGate& gate);

// True with probability `share` for a uniformly distributed `random`.
bool draws_exploration(double share, uint64_t random);

// A uniformly random order of 0..n-1 from `random` (Fisher-Yates over a splitmix64 stream).
// The run takes the first candidate in this order whose arm differs from the current one:
// a uniform draw among the candidates that are a real alternative.
std::vector<size_t> candidate_order(size_t n, uint64_t random);

// The canonical name of what a run ran, the unit `report --recommend` compares: the allocator
// family, then its options sorted by name, "mimalloc[arena_eager_commit=1,eager_commit_delay=4]".
// `options` is sorted already (a map); values are rendered by the caller.
std::string arm_name(const std::string& family, const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace learn
