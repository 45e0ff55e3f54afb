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

struct Round {
  std::set<std::string> hosts, cpus;
  std::vector<const ArmRun*> first_ok;  // per arm: its first successful run in this round
  std::vector<bool> failed;          // per arm: a run of it failed in this round
  std::string state;                 // a farm round's state and detail, when not done
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

}  // namespace

Paired analyse_paired(const Spec& spec, const BenchResult& o, int resamples) {
  const std::size_t n_arms = spec.arms.size();
  Paired p;
  p.arms.resize(n_arms);
  for (std::size_t a = 0; a < n_arms; ++a) p.arms[a].name = spec.arms[a].name;
  if (n_arms == 0) return p;
  p.reference = spec.arms[0].name;

  // Every round a run or the farm's list names, in round order.
  std::map<int, Round> rounds;
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

  std::map<std::string, NodeGroup> hosts, cpus;
  std::map<std::string, std::set<std::string>> host_cpus;
  for (const auto& [index, round] : rounds) {
    bool ran = false;
    for (std::size_t a = 0; a < n_arms; ++a) ran |= round.first_ok[a] || round.failed[a];
    if (!ran) continue;  // a round with no run has no place
    std::string host = shared(round.hosts), cpu = shared(round.cpus);
    for (auto* g : {&hosts[host], &cpus[cpu]}) {
      ++g->rounds;
      g->arms.resize(n_arms);
    }
    host_cpus[host].insert(cpu);
  }

  auto side = [&](const Round& round, std::size_t a) -> std::string {
    if (round.first_ok[a]) return "";
    return round.failed[a] ? spec.arms[a].name + " failed" : "no run of " + spec.arms[a].name;
  };
  for (std::size_t a = 1; a < n_arms; ++a) {
    auto& arm = p.arms[a];
    std::vector<double> ratios, logs, rss, vm;
    for (const auto& [index, round] : rounds) {
      std::string why;
      for (std::size_t s : {std::size_t(0), a}) {
        std::string w = side(round, s);
        if (!w.empty()) why += (why.empty() ? "" : "; ") + w;
      }
      const ArmRun* ref = round.first_ok[0];
      const ArmRun* run = round.first_ok[a];
      if (why.empty() && !(ref->record.wall_s > 0 && run->record.wall_s > 0)) why = "a wall time of 0";
      if (!why.empty()) {
        if (!round.state.empty()) why += " (round " + round.state + ")";
        arm.left_out.push_back({index, why});
        continue;
      }
      RoundPair pair;
      pair.round = index;
      pair.host = shared(round.hosts);
      pair.cpu = shared(round.cpus);
      pair.ratio = run->record.wall_s / ref->record.wall_s;
      pair.log_ratio = std::log(pair.ratio);
      if (run->record.max_rss_kb > 0 && ref->record.max_rss_kb > 0) {
        pair.rss_ratio = run->record.max_rss_kb / ref->record.max_rss_kb;
        rss.push_back(pair.rss_ratio);
      }
      const auto &run_vm = run->record.vm_peak_kb, &ref_vm = ref->record.vm_peak_kb;
      if (run_vm && ref_vm && *run_vm > 0 && *ref_vm > 0) {
        pair.vm_ratio = *run_vm / *ref_vm;
        vm.push_back(pair.vm_ratio);
      }
      ratios.push_back(pair.ratio);
      logs.push_back(pair.log_ratio);
      for (auto* g : {&hosts[pair.host], &cpus[pair.cpu]}) {
        auto& ga = g->arms[a];
        ++ga.pairs;
        ga.ratios.push_back(pair.ratio);
        ga.log_ratios.push_back(pair.log_ratio);
      }
      arm.pairs.push_back(std::move(pair));
    }
    arm.ratio = median_or_nan(ratios);
    arm.rss_ratio = median_or_nan(rss);
    arm.vm_ratio = median_or_nan(vm);
    arm.test = stats::wilcoxon_signed_rank(logs, stats::SignedRankAlternative::less);
    // Resampling rounds, not runs: a resampled round brings both its runs, so the interval keeps
    // what pairing cancelled cancelled. Each arm its own stream, as the unpaired interval.
    if (!ratios.empty()) arm.ci = stats::bootstrap_median(ratios, 0.95, resamples, spec.seed + a);
  }

  for (auto* groups : {&hosts, &cpus})
    for (auto& [name, g] : *groups) {
      g.name = name;
      for (auto& ga : g.arms) ga.ratio = median_or_nan(ga.ratios);
    }
  for (auto& [name, g] : hosts) g.cpu = host_cpus[name].size() == 1 ? *host_cpus[name].begin() : kMixedPlace;
  for (auto& [name, g] : hosts) p.by_host.push_back(std::move(g));
  for (auto& [name, g] : cpus) p.by_cpu.push_back(std::move(g));

  // An arm whose gain depends on the CPU model: one overall ratio describes neither model.
  for (std::size_t a = 1; a < n_arms; ++a)
    for (std::size_t i = 0; i < p.by_cpu.size(); ++i)
      for (std::size_t j = i + 1; j < p.by_cpu.size(); ++j) {
        const auto &gi = p.by_cpu[i], &gj = p.by_cpu[j];
        if (!model(gi.name) || !model(gj.name)) continue;
        const auto &x = gi.arms[a], &y = gj.arms[a];
        if (x.pairs < kModelMinRounds || y.pairs < kModelMinRounds) continue;
        auto test = stats::mann_whitney_u(x.log_ratios, y.log_ratios, stats::Alternative::two_sided);
        double gap = std::max(x.ratio, y.ratio) / std::min(x.ratio, y.ratio) - 1;
        if (!(test.p < kModelAlpha) || !(gap > kModelMinGap)) continue;
        p.warnings.push_back(spec.arms[a].name + ": paired ratio " + fmt("%.3fx", x.ratio) + " on " + gi.name + " (" +
                             std::to_string(x.pairs) + " rounds) but " + fmt("%.3fx", y.ratio) + " on " + gj.name +
                             " (" + std::to_string(y.pairs) + " rounds), two-sided Mann-Whitney p = " +
                             fmt("%.2g", test.p) +
                             ": its effect depends on the CPU model, and the overall ratio describes neither; pin "
                             "the nodes to one model (e.g. --slurm-args \"--constraint=...\") and bench each apart");
      }
  return p;
}

}  // namespace bench
