#include "bench/verdict.hpp"

#include <algorithm>
#include <cmath>

#include "learn/config_edit.hpp"
#include "learn/recommend.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"

namespace bench {
namespace {

std::string fx(double v, int digits) { return util::fixed(v, digits); }

// hyperfine's speedup and its error: ratio of means, relative errors added in quadrature.
void speedup(const ArmStats& ref, const ArmStats& arm, ArmVerdict& v) {
  v.speedup = ref.wall_s.mean / arm.wall_s.mean;
  double ra = arm.wall_sd / arm.wall_s.mean, rr = ref.wall_sd / ref.wall_s.mean;
  v.speedup_sd = v.speedup * std::sqrt(ra * ra + rr * rr);
}

// hyperfine's line ("ran 1.11 ± 0.02 times faster than"), said only where the judged ratio's CI
// says it: where the CI spans 1 the means' difference is given as what it is, noise.
std::string arm_line(const ArmStats& ref, const ArmStats& arm, const ArmVerdict& v, const Judged& j) {
  if (arm.ok == 0 || ref.ok == 0) return arm.name + ": no comparison (" + (arm.ok ? ref.name : arm.name) + " has no successful run)";
  bool faster = v.speedup >= 1;
  double shown = faster ? v.speedup : 1 / v.speedup;
  double shown_sd = faster ? v.speedup_sd : v.speedup_sd / (v.speedup * v.speedup);
  std::string means = fx(shown, 2) + (std::isnan(shown_sd) ? "" : " \u00b1 " + fx(shown_sd, 2)) + " times " +
                      (faster ? "faster" : "slower");
  bool clear = j.ci && (faster ? j.ci->hi < 1 : j.ci->lo > 1);
  std::string s = clear ? arm.name + " ran " + means + " than " + ref.name
                        : arm.name + ": no clear difference from " + ref.name + " (by the means " + means + ")";
  std::string detail = j.pairs ? "paired median " + ratio(j.ratio) + " over " + std::to_string(j.pairs) + " rounds"
                               : "median " + ratio(j.ratio);
  if (j.ci) detail += ", 95% CI " + fx(j.ci->lo, 2) + "-" + fx(j.ci->hi, 2);
  if (!std::isnan(arm.rss_ratio)) detail += "; peak RSS " + ratio(arm.rss_ratio);
  if (!std::isnan(arm.vm_ratio)) detail += ", peak VM " + ratio(arm.vm_ratio);
  return s + " (" + detail + ")";
}

// The outputs' verdict for an arm, in the terms advice needs.
enum class Outputs { unchecked, identical, differ };
Outputs outputs_of(const Spec& spec, const ArmStats& arm) {
  if (!spec.compare) return Outputs::unchecked;
  return arm.outputs_summary == "identical" ? Outputs::identical : Outputs::differ;
}

}  // namespace

Judged judged(const std::vector<ArmStats>& arms, std::size_t a, const Paired* paired) {
  if (paired && a < paired->arms.size() && paired->arms[a].pairs.size() >= kVerdictMinPairs && paired->arms[a].ci) {
    const auto& p = paired->arms[a];
    return {p.ratio, p.ci, p.pairs.size()};
  }
  return {arms[a].median_ratio, arms[a].median_ratio_ci, 0};
}

// The p-value shown beside the ratio an arm is judged on: the paired signed-rank test's, or the
// unpaired Mann-Whitney test's below kVerdictMinPairs rounds. NaN when there is none.
double judged_p(const std::vector<ArmStats>& arms, std::size_t a, const Paired* paired, const Judged& j) {
  if (j.pairs) return paired->arms[a].test.p;
  return arms[a].test ? arms[a].test->p : std::nan("");
}

Verdict decide(const Spec& spec, const std::vector<ArmStats>& arms, const std::string& tool, const Paired* paired) {
  Verdict v;
  if (arms.size() < 2) return v;
  const auto& ref = arms[0];
  double best = 0;
  for (std::size_t a = 1; a < arms.size(); ++a) {
    ArmVerdict av;
    av.name = arms[a].name;
    speedup(ref, arms[a], av);
    Judged j = judged(arms, a, paired);
    av.paired = j.pairs > 0;
    av.ratio = j.ratio, av.ci = j.ci, av.p = judged_p(arms, a, paired, j);
    av.clearly_faster = arms[a].failed == 0 && j.ci && j.ci->hi < 1;
    av.line = arm_line(ref, arms[a], av, j);
    if (av.clearly_faster && (!v.winner || j.ratio < best)) v.winner = a, best = j.ratio;
    v.arms.push_back(std::move(av));
  }
  if (!v.winner) {
    v.advice = "No arm ran clearly faster than " + ref.name +
               " (the ratio's 95% CI below 1, no failed run): nothing here to adopt.";
    return v;
  }
  const auto& w = arms[*v.winner];
  switch (outputs_of(spec, w)) {
    case Outputs::differ:
      v.advice = w.name + " is faster, but its outputs are not those of " + ref.name + " (" + w.outputs_summary +
                 "): do not adopt it before you know why.";
      return v;
    case Outputs::unchecked:
      v.advice = w.name + " is faster. Its outputs were not compared: run again with --compare-outputs FILE (the files "
                 "the command writes) before you adopt it.";
      return v;
    case Outputs::identical:
      break;
  }
  if (w.profile.empty()) {
    v.advice = w.name + " is your current setting and the fastest here: nothing to change.";
    return v;
  }
  // Adopting is report --recommend's decision made from one bench: the same rule (learn::Rule).
  const learn::Rule rule;
  Judged j = judged(arms, *v.winner, paired);
  auto missing = learn::figures_missing(rule, j.ratio, j.ci.value_or(stats::Interval{std::nan(""), std::nan("")}),
                                        judged_p(arms, *v.winner, paired, j), w.rss_ratio);
  if (std::min(w.ok, ref.ok) < rule.min_runs)
    missing.insert(missing.begin(), "thin evidence: " + std::to_string(std::min(w.ok, ref.ok)) + " successful runs (needs >= " +
                                        std::to_string(rule.min_runs) + " per arm: -n " + std::to_string(rule.min_runs) + ")");
  if (!missing.empty()) {
    v.advice = w.name + " is faster with identical outputs, but not by the rule adopting follows (report --recommend's): " +
               util::join(missing, "; ") + ". Nothing to adopt yet.";
    return v;
  }
  v.adopt_toml = w.arm_id.empty() ? "" : learn::adopt_toml(tool, w.arm_id);
  if (v.adopt_toml.empty()) {
    v.advice = w.name + " is faster with identical outputs; select it for " + tool + " with EDASHIM_PROFILE=" + w.profile + ".";
    return v;
  }
  if (!spec.adopt_into.empty()) {
    v.advice = w.name + " is faster with identical outputs: --adopt writes it into " + spec.adopt_into + " (below).";
    return v;
  }
  v.advice = w.name + " is faster with identical outputs. To use it for every run of " + tool +
             ": bench --adopt writes it into ~/.config/edashim/config.toml (with --project: the nearest "
             ".edashim.toml), or add these lines there yourself:";
  v.offer_toml = true;
  return v;
}

std::string render_verdict(const Verdict& v, bool markdown) {
  if (v.arms.empty()) return "";
  auto prose = [markdown](const std::string& text) { return markdown ? text + "\n" : "  " + wrap(text, 98, 4) + "\n"; };
  std::string s = markdown ? "**Summary**\n\n" : "Summary\n";
  for (const auto& a : v.arms) s += (markdown ? "- " : "") + prose(a.line);
  s += (markdown ? "\n" : "") + prose(v.advice);
  if (v.offer_toml) {
    std::string toml = v.adopt_toml;
    while (!toml.empty() && toml.back() == '\n') toml.pop_back();
    if (markdown) s += "\n```toml\n" + toml + "\n```\n";
    else
      for (const auto& line : util::split(toml, '\n')) s += "      " + line + "\n";
  }
  return s;
}

std::string wrap(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out, line;
  for (const auto& word : util::split(text, ' ')) {
    if (word.empty()) continue;
    bool fresh = line.find_first_not_of(' ') == std::string::npos;
    if (!fresh && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = std::string(indent, ' ');
      fresh = true;
    }
    line += (fresh ? "" : " ") + word;
  }
  return out + line;
}

std::vector<std::string> missing_everywhere(const Spec& spec, const std::vector<ArmStats>& arms) {
  std::vector<std::string> out;
  if (!spec.compare) return out;
  for (const auto& name : spec.compare_outputs) {
    bool any_ok = false, all_missing = true;
    for (const auto& a : arms) {
      if (a.ok == 0) continue;
      any_ok = true;
      auto it = a.outputs.find(name);
      if (it != a.outputs.end() && it->second.kind != OutputVerdict::missing) all_missing = false;
    }
    if (any_ok && all_missing) out.push_back(name);
  }
  return out;
}

std::vector<std::string> arms_without_success(const std::vector<ArmStats>& arms) {
  std::vector<std::string> out;
  for (const auto& a : arms)
    if (a.ok == 0 && a.failed > 0) out.push_back(a.name);
  return out;
}

std::vector<std::string> noise_warnings(const std::vector<ArmStats>& arms, double load_before, double load_after,
                                        int cpus, int jobs) {
  std::vector<std::string> out;
  // Bench's own runs count in the load after; what others add is what the figures suffer from.
  double others = std::max(std::isnan(load_before) ? 0 : load_before, std::isnan(load_after) ? 0 : load_after - jobs);
  if (cpus > 0 && others > cpus)
    out.push_back("the machine was busy (load average " + fx(std::max(load_before, load_after), 1) + " on " +
                  std::to_string(cpus) + " CPUs): the times include waiting for a CPU and are noisy; run again on a "
                  "quieter machine, or trust only a large, clear difference");
  for (const auto& a : arms) {
    std::vector<double> share;
    for (std::size_t i = 0; i < a.wall.size() && i < a.user_sys.size(); ++i)
      if (a.wall[i] >= kMinWallForShare) share.push_back(a.user_sys[i] / a.wall[i]);
    if (share.empty()) continue;
    std::sort(share.begin(), share.end());
    double median = share.size() % 2 ? share[share.size() / 2] : (share[share.size() / 2 - 1] + share[share.size() / 2]) / 2;
    if (median < kMinCpuShare)
      out.push_back(a.name + "'s runs were on a CPU for " + fx(100 * median, 0) +
                    "% of their wall time (user + sys / wall, median): the tool waited, for I/O or for a busy CPU; "
                    "the times are noisy if the machine was busy");
  }
  return out;
}

std::vector<std::string> all_warnings(const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms) {
  std::vector<std::string> out = o.warnings;
  for (auto& w : noise_warnings(arms, o.load_before, o.load_after, o.logical_cpus, spec.jobs)) out.push_back(std::move(w));
  return out;
}

}  // namespace bench
