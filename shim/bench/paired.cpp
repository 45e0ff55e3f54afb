#include "bench/paired.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "stats/mann_whitney.hpp"
#include "stats/summary.hpp"

namespace bench {
namespace {

// The one value every run of a round names, kMixedPlace when they name several, kUnknownPlace
// when none names any (a record from before the field, or a machine that would not say).
std::string shared(const std::set<std::string>& names) {
  if (names.empty()) return kUnknownPlace;
  return names.size() == 1 ? *names.begin() : kMixedPlace;
}

// One round as its runs tell it: where it ran, and what each arm did in it.
struct Round {
  std::set<std::string> hosts, cpus;
  std::vector<const ArmRun*> first_ok;  // per arm: its first successful run in this round
  std::vector<bool> failed;          // per arm: a run of it failed in this round
  std::string state;                 // a farm round's state and detail, when not done
};

using Rounds = std::map<int, Round>;  // by round index, so in round order

// The groups by host and by CPU model the pairs are filed under, and each host's CPU models
// (a host group names its model only when all its rounds agree).
struct Places {
  std::map<std::string, NodeGroup> hosts, cpus;
  std::map<std::string, std::set<std::string>> host_cpus;
};

// The figures an arm's medians are taken over, each from the pairs that have it.
struct ArmSeries {
  std::vector<double> ratios, log_ratios, rss_ratios, vm_ratios;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Median of the ratios: one round disturbed by a neighbour's job or a node's hiccup moves a mean
// of ratios as far as it likes, the median not at all; and the median of ratios is the
// exponential of the median of log ratios (for an odd count), the location the test ranks.
double median_or_nan(const std::vector<double>& xs) { return xs.empty() ? kNoFigure : stats::median(xs); }

bool model(const std::string& name) { return name != kUnknownPlace && name != kMixedPlace; }

// Every round a run or the farm's list names: a farm's round that never ran still has a state
// worth saying when an arm's pair is missing from it.
Rounds collect_rounds(const BenchResult& o, std::size_t n_arms) {
  Rounds rounds;
  auto round_at = [&](int r) -> Round& {
    auto& round = rounds[r];
    if (round.first_ok.empty()) {
      round.first_ok.assign(n_arms, nullptr);
      round.failed.assign(n_arms, false);
    }
    return round;
  };
  for (const auto& rs : o.rounds) {
    auto& round = round_at(rs.round);
    if (rs.state != "done") round.state = rs.state + (rs.detail.empty() ? "" : ", " + rs.detail);
  }
  for (const auto& r : o.runs) {
    if (r.arm < 0 || std::size_t(r.arm) >= n_arms) continue;
    auto& round = round_at(r.round);
    if (!r.record.host.empty()) round.hosts.insert(r.record.host);
    if (!r.record.cpu.empty()) round.cpus.insert(r.record.cpu);
    if (!r.ok) round.failed[std::size_t(r.arm)] = true;
    else if (!round.first_ok[std::size_t(r.arm)]) round.first_ok[std::size_t(r.arm)] = &r;
  }
  return rounds;
}

// A group per host and per CPU model, counting the rounds that ran there, before any pairing:
// a group's round count includes rounds whose pairs were left out.
Places group_rounds_by_place(const Rounds& rounds, std::size_t n_arms) {
  Places places;
  for (const auto& [index, round] : rounds) {
    bool ran = false;
    for (std::size_t a = 0; a < n_arms; ++a) ran |= round.first_ok[a] || round.failed[a];
    if (!ran) continue;  // a round with no run has no place
    std::string host = shared(round.hosts), cpu = shared(round.cpus);
    for (auto* g : {&places.hosts[host], &places.cpus[cpu]}) {
      ++g->rounds;
      g->arms.resize(n_arms);
    }
    places.host_cpus[host].insert(cpu);
  }
  return places;
}

// Why a round gives arm `a` no pair with the reference ("" when it gives one): each side's
// missing or failed run, or a wall time of 0 that no ratio can be taken of.
std::string why_unpaired(const Spec& spec, const Round& round, std::size_t a) {
  auto side = [&](std::size_t s) -> std::string {
    if (round.first_ok[s]) return "";
    return round.failed[s] ? spec.arms[s].name + " failed" : "no run of " + spec.arms[s].name;
  };
  std::string why;
  for (std::size_t s : {std::size_t(0), a}) {
    std::string w = side(s);
    if (!w.empty()) why += (why.empty() ? "" : "; ") + w;
  }
  if (why.empty() && !(round.first_ok[0]->record.wall_s > 0 && round.first_ok[a]->record.wall_s > 0))
    why = "a wall time of 0";
  if (!why.empty() && !round.state.empty()) why += " (round " + round.state + ")";
  return why;
}

// Arm `a`'s run against the reference's in a round both ran in; RSS and VM ratios only where
// both runs have the figure.
RoundPair pair_in_round(int index, const Round& round, std::size_t a, ArmSeries& series) {
  const auto& ref = round.first_ok[0]->record;
  const auto& run = round.first_ok[a]->record;
  RoundPair pair;
  pair.round = index;
  pair.host = shared(round.hosts);
  pair.cpu = shared(round.cpus);
  pair.ratio = run.wall_s / ref.wall_s;
  pair.log_ratio = std::log(pair.ratio);
  if (run.max_rss_kb > 0 && ref.max_rss_kb > 0) {
    pair.rss_ratio = run.max_rss_kb / ref.max_rss_kb;
    series.rss_ratios.push_back(pair.rss_ratio);
  }
  if (run.vm_peak_kb && ref.vm_peak_kb && *run.vm_peak_kb > 0 && *ref.vm_peak_kb > 0) {
    pair.vm_ratio = *run.vm_peak_kb / *ref.vm_peak_kb;
    series.vm_ratios.push_back(pair.vm_ratio);
  }
  series.ratios.push_back(pair.ratio);
  series.log_ratios.push_back(pair.log_ratio);
  return pair;
}

// Files a pair's ratio under its host's and its CPU model's group.
void file_by_place(const RoundPair& pair, std::size_t a, Places& places) {
  for (auto* g : {&places.hosts[pair.host], &places.cpus[pair.cpu]}) {
    auto& ga = g->arms[a];
    ++ga.pairs;
    ga.ratios.push_back(pair.ratio);
    ga.log_ratios.push_back(pair.log_ratio);
  }
}

// Arm `a` round by round: a pair where both sides ran, else the round left out with why.
ArmSeries pair_arm(const Spec& spec, const Rounds& rounds, std::size_t a, PairedArm& arm, Places& places) {
  ArmSeries series;
  for (const auto& [index, round] : rounds) {
    std::string why = why_unpaired(spec, round, a);
    if (!why.empty()) {
      arm.left_out.push_back({index, why});
      continue;
    }
    arm.pairs.push_back(pair_in_round(index, round, a, series));
    file_by_place(arm.pairs.back(), a, places);
  }
  return series;
}

void summarise_arm(const ArmSeries& series, const Spec& spec, std::size_t a, int resamples, PairedArm& arm) {
  arm.ratio = median_or_nan(series.ratios);
  arm.rss_ratio = median_or_nan(series.rss_ratios);
  arm.vm_ratio = median_or_nan(series.vm_ratios);
  arm.test = stats::wilcoxon_signed_rank(series.log_ratios, stats::SignedRankAlternative::less);
  // Resampling rounds, not runs: a resampled round brings both its runs, so the interval keeps
  // what pairing cancelled cancelled. Each arm its own stream, as the unpaired interval.
  if (!series.ratios.empty()) arm.ci = stats::bootstrap_median(series.ratios, 0.95, resamples, spec.seed + a);
}

// The groups, named and with their medians, into the result, sorted by name (the maps' order).
void add_groups(Places& places, Paired& p) {
  for (auto* groups : {&places.hosts, &places.cpus})
    for (auto& [name, g] : *groups) {
      g.name = name;
      for (auto& ga : g.arms) ga.ratio = median_or_nan(ga.ratios);
    }
  for (auto& [name, g] : places.hosts) {
    const auto& models = places.host_cpus[name];
    g.cpu = models.size() == 1 ? *models.begin() : kMixedPlace;
  }
  for (auto& [name, g] : places.hosts) p.by_host.push_back(std::move(g));
  for (auto& [name, g] : places.cpus) p.by_cpu.push_back(std::move(g));
}

// An arm whose gain depends on the CPU model: one overall ratio describes neither model. Only
// named models count (unknown and mixed are no model), each with enough pairs to test.
std::vector<std::string> cpu_model_warnings(const Spec& spec, const std::vector<NodeGroup>& by_cpu) {
  std::vector<std::string> warnings;
  for (std::size_t a = 1; a < spec.arms.size(); ++a)
    for (std::size_t i = 0; i < by_cpu.size(); ++i)
      for (std::size_t j = i + 1; j < by_cpu.size(); ++j) {
        const auto &gi = by_cpu[i], &gj = by_cpu[j];
        if (!model(gi.name) || !model(gj.name)) continue;
        const auto &x = gi.arms[a], &y = gj.arms[a];
        if (x.pairs < kModelMinRounds || y.pairs < kModelMinRounds) continue;
        auto test = stats::mann_whitney_u(x.log_ratios, y.log_ratios, stats::Alternative::two_sided);
        double gap = std::max(x.ratio, y.ratio) / std::min(x.ratio, y.ratio) - 1;
        if (!(test.p < kModelAlpha) || !(gap > kModelMinGap)) continue;
        warnings.push_back(spec.arms[a].name + ": paired ratio " + fmt("%.3fx", x.ratio) + " on " + gi.name + " (" +
                           std::to_string(x.pairs) + " rounds) but " + fmt("%.3fx", y.ratio) + " on " + gj.name +
                           " (" + std::to_string(y.pairs) + " rounds), two-sided Mann-Whitney p = " +
                           fmt("%.2g", test.p) +
                           ": its effect depends on the CPU model, and the overall ratio describes neither; pin "
                           "the nodes to one model (e.g. --slurm-args \"--constraint=...\") and bench each apart");
      }
  return warnings;
}

}  // namespace

Paired analyse_paired(const Spec& spec, const BenchResult& o, int resamples) {
  const std::size_t n_arms = spec.arms.size();
  Paired p;
  p.arms.resize(n_arms);
  for (std::size_t a = 0; a < n_arms; ++a) p.arms[a].name = spec.arms[a].name;
  if (n_arms == 0) return p;
  p.reference = spec.arms[0].name;

  Rounds rounds = collect_rounds(o, n_arms);
  Places places = group_rounds_by_place(rounds, n_arms);
  for (std::size_t a = 1; a < n_arms; ++a) {
    ArmSeries series = pair_arm(spec, rounds, a, p.arms[a], places);
    summarise_arm(series, spec, a, resamples, p.arms[a]);
  }
  add_groups(places, p);
  p.warnings = cpu_model_warnings(spec, p.by_cpu);
  return p;
}

}  // namespace bench
