#include "pipeline/explore.hpp"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "learn/explore.hpp"

namespace pipeline {

uint64_t system_random() {
  uint64_t r = 0;
  if (::getrandom(&r, sizeof r, GRND_NONBLOCK) == sizeof r) return r;
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t(ts.tv_nsec) << 20) ^ uint64_t(ts.tv_sec) ^ (uint64_t(::getpid()) << 44);
}

std::string why_not_explore(const Plan& plan, const std::vector<std::string>& env) {
  const auto& s = plan.loaded.settings;
  learn::ExploreGate gate;
  gate.share = s.explore.value;
  gate.candidates = s.explore_profiles.value.size();
  gate.explicit_choice = !plan.inv.chosen.profile_origin.empty() ? plan.inv.chosen.profile_origin : plan.inv.chosen.allocator_origin;
  gate.switch_value = run::lookup(env, "EDASHIM_EXPLORE");
  gate.preflight_blocker = tool::blocker_name(plan.preflight.blocker);
  gate.preloaded_by_caller = plan.preloaded_by_caller;
  gate.config_errors = plan.loaded.has_errors() || plan.tool_path.empty();
  gate.logged = !plan.log_path.empty();
  return learn::why_not_explore(gate);
}

bool maybe_explore(Plan& plan, const paths::Files& files, const std::vector<std::string>& env, const RandomSource& random) {
  if (!why_not_explore(plan, env).empty()) return false;
  if (!learn::draws_exploration(plan.loaded.settings.explore.value, random())) return false;
  const std::string current = plan.arm;
  const auto candidates = plan.loaded.settings.explore_profiles.value;
  for (size_t i : learn::candidate_order(candidates.size(), random())) {
    Invocation inv = plan.inv;
    // "system" changes the allocator alone: the `baseline` profile would also turn scratch off
    // (the shipped yosys profile has it on), and the comparison would measure that too.
    if (candidates[i] == "system") {
      inv.chosen.allocator = "system";
      inv.chosen.allocator_origin = "explore_profiles";
    } else {
      inv.chosen.profile = candidates[i];
      inv.chosen.profile_origin = "explore_profiles";
    }
    Plan candidate = make_plan(inv, files, env);
    // A candidate that cannot run as itself here (its library missing, its profile broken, the
    // preload left out) would be logged as what it is not: passed over.
    if (candidate.loaded.has_errors() || candidate.tool_path.empty() || !candidate.allocator_note.empty() ||
        !candidate.fallback_library.empty() || !candidate.preflight.preload_reaches())
      continue;
    if (candidate.arm == current) continue;
    candidate.explored = candidates[i];
    candidate.explored_instead_of = current;
    plan = std::move(candidate);
    return true;
  }
  return false;
}

}  // namespace pipeline
