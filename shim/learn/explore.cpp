#include "learn/explore.hpp"

#include "util/strings.hpp"

namespace learn {

std::string why_not_explore(const ExploreGate& g) {
  if (!(g.share > 0)) return "explore is off (explore = 0)";
  if (g.candidates == 0) return "explore_profiles is empty";
  if (g.switch_value) {
    auto on = util::parse_switch(*g.switch_value);
    // Only a clear "on" leaves the decision to the settings: a value nobody can read as on or
    // off is taken as off, the safe side for an experiment.
    if (!on || !*on) return "EDASHIM_EXPLORE=" + *g.switch_value + " stops it for this command";
  }
  if (!g.explicit_choice.empty()) return "a profile or allocator was chosen for this run (" + g.explicit_choice + ")";
  if (!g.preloaded_by_caller.empty()) return "your LD_PRELOAD already has an allocator (" + g.preloaded_by_caller + ")";
  if (!g.preflight_blocker.empty()) return "the pre-flight says a preload cannot work for this tool (" + g.preflight_blocker + ")";
  if (g.config_errors) return "the configuration has errors";
  // An experiment nobody records only perturbs the user's runs.
  if (!g.logged) return "the run log is off (log = \"off\"), so nothing would record it";
  return "";
}

bool draws_exploration(double share, uint64_t random) {
  if (!(share > 0)) return false;
  if (share >= 1) return true;
  // The top 53 bits as a double in [0, 1): exact, and uniform.
  return double(random >> 11) * 0x1.0p-53 < share;
}

std::vector<size_t> candidate_order(size_t n, uint64_t random) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  uint64_t state = random;
  auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  for (size_t i = n; i > 1; --i) {
    // Rejection sampling: an unbiased index below i.
    uint64_t limit = UINT64_MAX - UINT64_MAX % i, r;
    do r = next();
    while (r >= limit);
    std::swap(order[i - 1], order[r % i]);
  }
  return order;
}

std::string arm_name(const std::string& family, const std::vector<std::pair<std::string, std::string>>& options) {
  if (options.empty()) return family;
  std::string s = family + "[";
  for (size_t i = 0; i < options.size(); ++i) s += (i ? "," : "") + options[i].first + "=" + options[i].second;
  return s + "]";
}

}  // namespace learn
