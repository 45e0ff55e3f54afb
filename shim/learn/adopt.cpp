#include "learn/adopt.hpp"

#include <algorithm>

#include "util/strings.hpp"
#include "util/table.hpp"

namespace learn {
namespace {

std::string P(const std::string& text) { return util::printable(text); }

using Entries = std::vector<Learned>;

// The learned entry the verdict's best candidate becomes.
Learned learned_entry(const Verdict& v, const Comparison& best, const Identity& binary, const std::string& date,
                      const Learned* previous) {
  Learned l;
  l.tool = v.tool;
  l.cpu = v.cpu;
  l.arm = best.arm;
  l.replaces = v.current;
  // A re-adoption over a learned arm keeps what that arm replaced, so the re-check still
  // compares with the original choice.
  if (previous && previous->arm == v.current && !previous->replaces.empty()) l.replaces = previous->replaces;
  l.binary = binary;
  l.runs = int64_t(best.runs + best.current_runs);
  l.signatures = int64_t(best.signatures);
  l.ratio = best.ratio;
  l.ci_lo = best.ci.lo;
  l.ci_hi = best.ci.hi;
  l.rss_ratio = best.rss_ratio;
  l.p = best.p;
  l.date = date;
  return l;
}

// The verdict recommends: adopt its best candidate, unless a bench must confirm it first and
// has not, or the binary is gone.
AdoptStep adopt_recommended(const Verdict& v, const AdoptFacts& facts, const std::vector<BenchRecord>& benches,
                            Entries& entries, Entries::iterator it) {
  AdoptStep step;
  const auto& best = v.candidates[std::size_t(v.recommended)];
  auto parts = parse_arm(best.arm);
  if (facts.requires_bench && parts && !bench_confirms(benches, v.tool, parts->allocator)) {
    step.said.push_back("adopt: " + P(best.arm) + " for " + P(v.tool) +
                        " not adopted: no `edashim bench --compare-outputs` in the log found " + P(v.tool) +
                        "'s outputs identical under " + P(parts->allocator) + " (adopt_requires_bench = true, from " +
                        facts.requires_bench_origin + ")");
    return step;
  }
  if (!facts.binary) {
    step.said.push_back("adopt: " + P(v.tool) + " at " + P(v.path) + " is gone: nothing adopted");
    return step;
  }
  Learned l = learned_entry(v, best, *facts.binary, facts.date, it != entries.end() ? &*it : nullptr);
  if (it != entries.end()) *it = l;
  else entries.push_back(l);
  step.said.push_back("adopt: " + P(v.tool) + " now runs " + P(best.arm) + " on this CPU model (" + P(facts.learned_file) +
                      ")");
  step.changed = true;
  return step;
}

// Nothing new wins: is what was learned still supported against what it replaced, on the same
// binary?
AdoptStep recheck_learned(const Verdict& v, const AdoptFacts& facts, const std::vector<Run>& counted, const Rule& rule,
                          Entries& entries, Entries::iterator it, int resamples) {
  AdoptStep step;
  if (!facts.binary || !(it->binary == *facts.binary)) {
    step.said.push_back("adopt: dropped the learned " + P(it->arm) + " for " + P(v.tool) + ": " + P(it->binary.path) +
                        (facts.binary ? " changed since it was learned" : " is gone"));
    entries.erase(it);
    step.changed = true;
    return step;
  }
  auto again = compare_arms(counted, v.tool, v.cpu, it->arm, it->replaces, rule, resamples);
  if (again && !again->holds()) {
    step.said.push_back("adopt: dropped the learned " + P(it->arm) + " for " + P(v.tool) + ": " +
                        P(util::join(again->missing, "; ")));
    entries.erase(it);
    step.changed = true;
  } else if (again) {
    step.said.push_back("adopt: " + P(v.tool) + " keeps the learned " + P(it->arm) + " (still " +
                        util::fixed(again->ratio, 2) + "x against " + P(it->replaces) + ", CI " +
                        util::fixed(again->ci.lo, 2) + "-" + util::fixed(again->ci.hi, 2) + ")");
  }
  return step;
}

}  // namespace

AdoptGate adopt_gate(const Verdict& v, bool adopt_on, const std::string& this_cpu) {
  AdoptGate gate;
  if (!adopt_on) {
    if (v.recommended >= 0 && v.cpu == this_cpu)
      gate.said = "adopt: off for " + P(v.tool) + " (adopt = true in ~/.config/edashim/config.toml would adopt it)";
    return gate;
  }
  if (v.cpu != this_cpu) {
    if (v.recommended >= 0)
      gate.said = "adopt: " + P(v.tool) + "'s runs on " + (v.cpu.empty() ? "an unknown CPU model" : P(v.cpu)) +
                  " are not this machine's (" + P(this_cpu) + "); run report --recommend there to adopt it";
    return gate;
  }
  gate.acts = true;
  return gate;
}

CountedRuns runs_of_current_binary(const std::vector<Run>& runs, const std::string& tool, const std::string& cpu,
                                   const std::optional<Identity>& binary) {
  CountedRuns counted;
  for (const auto& r : runs) {
    if (r.tool != tool || r.cpu != cpu) continue;
    ++counted.all;
    if (!binary || r.start_unix >= double(binary->mtime_s)) counted.runs.push_back(r);
  }
  return counted;
}

AdoptStep adopt_verdict(const Verdict& shown, const AdoptFacts& facts, const std::vector<Run>& runs,
                        const std::vector<BenchRecord>& benches, const Rule& rule, Entries& entries, int resamples) {
  AdoptStep step;
  Verdict v = shown;
  auto counted = runs_of_current_binary(runs, v.tool, v.cpu, facts.binary);
  if (counted.filtered()) {
    auto again = recommend(counted.runs, rule, resamples);
    if (again.size() == 1) v = again[0];
    else v.recommended = -1, v.candidates.clear();
    step.said.push_back("adopt: " + std::to_string(counted.all - counted.runs.size()) + " of " +
                        std::to_string(counted.all) + " runs of " + P(v.tool) + " predate its binary (" + P(shown.path) +
                        ", modified " + util::iso_time_utc(double(facts.binary->mtime_s)) +
                        ") and do not count for adopting");
  }
  auto it = std::find_if(entries.begin(), entries.end(),
                         [&](const Learned& l) { return l.tool == v.tool && l.cpu == v.cpu; });
  AdoptStep rest;
  if (v.recommended >= 0) rest = adopt_recommended(v, facts, benches, entries, it);
  else if (it != entries.end())
    rest = recheck_learned(v, facts, counted.filtered() ? counted.runs : runs, rule, entries, it, resamples);
  step.changed = rest.changed;
  step.said.insert(step.said.end(), rest.said.begin(), rest.said.end());
  return step;
}

}  // namespace learn
