#include "bench/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "bench/command_tool.hpp"
#include "bench/verdict.hpp"
#include "report/aggregate.hpp"

namespace bench {
namespace {

nlohmann::json num(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

std::string p_value(double p) {
  if (std::isnan(p)) return "-";
  char buf[32];
  if (p < 1e-4) std::snprintf(buf, sizeof buf, "%.1e", p);
  else std::snprintf(buf, sizeof buf, "%.4f", p);
  return buf;
}

}  // namespace

double sample_sd(const std::vector<double>& xs) {
  if (xs.size() < 2) return std::nan("");
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= double(xs.size());
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / double(xs.size() - 1));
}

std::string ratio(double r) {
  if (std::isnan(r)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fx", r);
  return buf;
}

std::string vm_note(const std::vector<ArmStats>& arms) {
  std::vector<std::string> off, silent;
  for (const auto& a : arms) {
    if (a.ok == 0 || !a.vm_kb.empty()) continue;
    (a.unprobed ? off : silent).push_back(a.name);
  }
  if (off.empty() && silent.empty()) return "";
  auto names = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  std::string s = "peak virtual size (VmPeak) needs the probe's records: ";
  if (!off.empty())
    s += "the probe was off for " + names(off) +
         " (probe = false in its profile, libedashim_probe.so not installed, or a sanitizer runtime that must load first)";
  if (!silent.empty())
    s += std::string(off.empty() ? "" : "; ") + "no process of " + names(silent) +
         " reported one (each ended by _exit, exec or a signal)";
  return s;
}

std::vector<ArmStats> analyse(const Spec& spec, const BenchResult& o, int resamples) {
  std::vector<ArmStats> arms(spec.arms.size());
  for (std::size_t a = 0; a < arms.size(); ++a) {
    arms[a].name = spec.arms[a].name;
    arms[a].profile = spec.arms[a].profile;
    if (a < o.env_bytes.size()) arms[a].env_bytes = o.env_bytes[a];
  }
  std::vector<std::size_t> verified(arms.size(), 0), known(arms.size(), 0);
  for (const auto& r : o.runs) {
    auto& arm = arms[std::size_t(r.arm)];
    if (r.record.allocator_verified) {
      ++known[std::size_t(r.arm)];
      if (*r.record.allocator_verified) ++verified[std::size_t(r.arm)];
    }
    if (!r.ok) {
      ++arm.failed;
      arm.failures.push_back("round " + std::to_string(r.round + 1) + ": " + r.failure);
      continue;
    }
    ++arm.ok;
    if (arm.arm_id.empty()) arm.arm_id = r.record.arm;
    arm.wall.push_back(r.record.wall_s);
    arm.user_sys.push_back(r.record.user_s + r.record.sys_s);
    arm.rss_kb.push_back(r.record.max_rss_kb);
    if (r.record.vm_peak_kb) arm.vm_kb.push_back(*r.record.vm_peak_kb);
    if (!r.record.probed) ++arm.unprobed;
  }
  const double nan = std::nan("");
  for (std::size_t a = 0; a < arms.size(); ++a) {
    auto& arm = arms[a];
    arm.wall_s = stats::summarize(arm.wall);
    arm.wall_sd = sample_sd(arm.wall);
    arm.rss_median_kb = arm.rss_kb.empty() ? nan : stats::median(arm.rss_kb);
    arm.vm_median_kb = arm.vm_kb.empty() ? nan : stats::median(arm.vm_kb);
    if (known[a]) arm.verified_share = double(verified[a]) / double(known[a]);
    const auto& ref = arms[0];
    arm.mean_ratio = arm.wall_s.mean / ref.wall_s.mean;
    arm.median_ratio = arm.wall_s.median / ref.wall_s.median;
    arm.p5_ratio = arm.wall_s.p5 / ref.wall_s.p5;
    arm.p95_ratio = arm.wall_s.p95 / ref.wall_s.p95;
    arm.rss_ratio = arm.rss_median_kb / ref.rss_median_kb;
    arm.vm_ratio = arm.vm_median_kb / ref.vm_median_kb;  // NaN when either has no figure
    if (a > 0 && !arm.wall.empty() && !ref.wall.empty()) {
      arm.test = stats::mann_whitney_u(arm.wall, ref.wall, stats::Alternative::less);
      // Each arm gets its own stream, so adding an arm does not change the others' intervals.
      arm.median_ratio_ci = stats::bootstrap_median_ratio(ref.wall, arm.wall, 0.95, resamples, spec.seed + a);
    }
  }
  if (spec.compare && !arms.empty()) {
    auto first = single_contents(o, 0);
    for (std::size_t a = 0; a < arms.size(); ++a) {
      arms[a].outputs = output_verdicts(o, int(a), a == 0 ? nullptr : &first);
      arms[a].outputs_summary = arms[a].ok == 0 ? "-" : outputs_summary(arms[a].outputs, a == 0);
    }
  }
  return arms;
}

util::Table bench_table(const std::vector<ArmStats>& arms, bool compare, bool compact) {
  util::Table t;
  auto fx = [](double v) { return util::fixed(v, 3); };
  if (compact) {
    // p5/p95 are in the CSV; the terminal shows the spread as hyperfine does (sigma, min-max).
    t.headers = {"arm", "ok", "failed", "mean s", "median s", "σ s", "min - max s", "median ratio 95% CI",
                 "peak RSS MB", "peak VM MB", "verified"};
  } else {
    t.headers = {"arm", "ok", "failed", "mean_s", "median_s", "p5_s", "p95_s", "mean_ratio", "median_ratio", "p5_ratio",
                 "p95_ratio", "mann_whitney_p_faster", "mann_whitney_method", "ci95_lo", "ci95_hi", "peak_rss_mb", "rss_ratio", "peak_vm_mb", "vm_ratio", "verified",
                 "stddev_s", "min_s", "max_s"};
  }
  if (compare) t.headers.push_back("outputs");
  t.right_aligned.assign(t.headers.size(), true);
  t.right_aligned[0] = false;
  if (compare) t.right_aligned.back() = false;
  for (std::size_t a = 0; a < arms.size(); ++a) {
    const auto& s = arms[a];
    bool first = a == 0;
    std::string verified = s.verified_share ? util::fixed(100 * *s.verified_share, 0) + "%" : "-";
    std::vector<std::string> row{s.name, std::to_string(s.ok), std::to_string(s.failed)};
    if (compact) {
      auto both = [&](double v, double r) { return fx(v) + (first ? "" : " (" + ratio(r) + ")"); };
      row.push_back(both(s.wall_s.mean, s.mean_ratio));
      row.push_back(both(s.wall_s.median, s.median_ratio));
      row.push_back(std::isnan(s.wall_sd) ? "-" : fx(s.wall_sd));
      row.push_back(s.ok ? fx(s.wall_s.min) + " - " + fx(s.wall_s.max) : "-");
      row.push_back(s.median_ratio_ci ? util::fixed(s.median_ratio_ci->lo, 3) + " - " + util::fixed(s.median_ratio_ci->hi, 3)
                                      : "-");
      row.push_back(util::fixed(s.rss_median_kb / 1024, 1) + (first ? "" : " (" + ratio(s.rss_ratio) + ")"));
      row.push_back(std::isnan(s.vm_median_kb) ? "-"
                                               : util::fixed(s.vm_median_kb / 1024, 1) +
                                                     (first ? "" : " (" + ratio(s.vm_ratio) + ")"));
      row.push_back(verified);
    } else {
      for (double v : {s.wall_s.mean, s.wall_s.median, s.wall_s.p5, s.wall_s.p95}) row.push_back(util::fixed(v, 6));
      for (double v : {s.mean_ratio, s.median_ratio, s.p5_ratio, s.p95_ratio}) row.push_back(util::fixed(v, 4));
      row.push_back(s.test ? p_value(s.test->p) : "");
      row.push_back(s.test ? (s.test->exact ? "exact" : "asymptotic") : "");
      row.push_back(s.median_ratio_ci ? util::fixed(s.median_ratio_ci->lo, 4) : "");
      row.push_back(s.median_ratio_ci ? util::fixed(s.median_ratio_ci->hi, 4) : "");
      row.push_back(util::fixed(s.rss_median_kb / 1024, 2));
      row.push_back(util::fixed(s.rss_ratio, 4));
      row.push_back(std::isnan(s.vm_median_kb) ? "" : util::fixed(s.vm_median_kb / 1024, 2));
      row.push_back(std::isnan(s.vm_ratio) ? "" : util::fixed(s.vm_ratio, 4));
      row.push_back(s.verified_share ? util::fixed(*s.verified_share, 3) : "");
      row.push_back(std::isnan(s.wall_sd) ? "" : util::fixed(s.wall_sd, 6));
      row.push_back(s.ok ? util::fixed(s.wall_s.min, 6) : "");
      row.push_back(s.ok ? util::fixed(s.wall_s.max, 6) : "");
    }
    if (compare) row.push_back(s.outputs_summary);
    t.rows.push_back(std::move(row));
  }
  return t;
}

util::Table narrow_table(const std::vector<ArmStats>& arms, const Paired& paired) {
  util::Table t;
  t.headers = {"arm", "ok", "mean \u00b1 \u03c3 s", "min-max s", "ratio (95% CI)", "p", "peak RSS MB"};
  t.right_aligned.assign(t.headers.size(), true);
  t.right_aligned[0] = false;
  // Four or five significant digits, the same for every row: a 1200 s run's milliseconds are noise.
  double longest = 0;
  for (const auto& s : arms) longest = s.ok ? std::max(longest, s.wall_s.max) : longest;
  int digits = longest >= 100 ? 1 : longest >= 10 ? 2 : 3;
  auto fx = [digits](double v) { return util::fixed(v, digits); };
  for (std::size_t a = 0; a < arms.size(); ++a) {
    const auto& s = arms[a];
    bool first = a == 0;
    std::string spread = s.ok == 0 ? "-" : fx(s.wall_s.mean) + (std::isnan(s.wall_sd) ? "" : " \u00b1 " + fx(s.wall_sd));
    Judged j = first ? Judged{} : judged(arms, a, &paired);  // the ratio the verdict is on
    std::string ratio_ci = first ? "" : util::fixed(j.ratio, 3);
    if (!first && j.ci) ratio_ci += " (" + util::fixed(j.ci->lo, 3) + "-" + util::fixed(j.ci->hi, 3) + ")";
    std::string p = first ? "" : "-";
    if (!first && a < paired.arms.size() && paired.arms[a].test.method != stats::SignedRankMethod::none)
      p = p_value(paired.arms[a].test.p);
    double mb = s.rss_median_kb / 1024;
    std::string rss = s.ok == 0 ? "-" : util::fixed(mb, mb >= 100 ? 0 : 1);
    if (s.ok && !first) rss += " (" + util::fixed(s.rss_ratio, 2) + "x)";
    t.rows.push_back({s.name, std::to_string(s.ok) + "/" + std::to_string(s.ok + s.failed), spread,
                      s.ok ? fx(s.wall_s.min) + "-" + fx(s.wall_s.max) : "-", ratio_ci, p, rss});
  }
  return t;
}

util::Table paired_table(const Paired& p) {
  util::Table t;
  t.headers = {"arm", "pairs", "paired ratio", "95% CI", "Wilcoxon p (faster)", "RSS ratio", "VM ratio"};
  t.right_aligned = {false, true, true, true, true, true, true};
  for (std::size_t a = 1; a < p.arms.size(); ++a) {
    const auto& arm = p.arms[a];
    std::string pairs = std::to_string(arm.pairs.size());
    if (!arm.left_out.empty()) pairs += " (" + std::to_string(arm.left_out.size()) + " left out)";
    std::string test = arm.test.method == stats::SignedRankMethod::none
                           ? "-"
                           : p_value(arm.test.p) + (arm.test.method == stats::SignedRankMethod::exact ? " exact" : "");
    t.rows.push_back({arm.name, pairs, ratio(arm.ratio),
                      arm.ci ? util::fixed(arm.ci->lo, 3) + " - " + util::fixed(arm.ci->hi, 3) : "-", test,
                      ratio(arm.rss_ratio), ratio(arm.vm_ratio)});
  }
  return t;
}

namespace {

// A group's row: its name (and CPU model), rounds, each arm's "0.850x (6)".
util::Table groups_table(const Paired& p, const std::vector<NodeGroup>& groups, bool with_cpu) {
  util::Table t;
  t.headers = {with_cpu ? "host" : "CPU model"};
  if (with_cpu) t.headers.push_back("CPU model");
  t.headers.push_back("rounds");
  for (std::size_t a = 1; a < p.arms.size(); ++a) t.headers.push_back(p.arms[a].name);
  t.right_aligned.assign(t.headers.size(), true);
  t.right_aligned[0] = false;
  if (with_cpu) t.right_aligned[1] = false;
  for (const auto& g : groups) {
    std::vector<std::string> row{g.name};
    if (with_cpu) row.push_back(g.cpu);
    row.push_back(std::to_string(g.rounds));
    for (std::size_t a = 1; a < p.arms.size(); ++a) {
      const auto& ga = g.arms[a];
      row.push_back(ga.pairs ? ratio(ga.ratio) + " (" + std::to_string(ga.pairs) + ")" : "-");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

nlohmann::json groups_json(const Paired& p, const std::vector<NodeGroup>& groups, bool hosts) {
  auto out = nlohmann::json::array();
  for (const auto& g : groups) {
    nlohmann::json jg;
    jg[hosts ? "host" : "cpu"] = g.name;
    if (hosts) jg["cpu"] = g.cpu;
    jg["rounds"] = g.rounds;
    auto& arms = jg["arms"] = nlohmann::json::array();
    for (std::size_t a = 1; a < p.arms.size(); ++a)
      arms.push_back({{"name", p.arms[a].name}, {"pairs", g.arms[a].pairs}, {"ratio", num(g.arms[a].ratio)}});
    out.push_back(std::move(jg));
  }
  return out;
}

nlohmann::json paired_json(const Paired& p) {
  nlohmann::json j;
  j["reference"] = p.reference;
  auto& arms = j["arms"] = nlohmann::json::array();
  for (std::size_t a = 1; a < p.arms.size(); ++a) {
    const auto& arm = p.arms[a];
    nlohmann::json ja;
    ja["name"] = arm.name;
    ja["pairs"] = arm.pairs.size();
    ja["ratio"] = num(arm.ratio);
    ja["ci95"] = arm.ci ? nlohmann::json::array({num(arm.ci->lo), num(arm.ci->hi)}) : nlohmann::json(nullptr);
    const auto& w = arm.test;
    ja["wilcoxon"] = {{"statistic", num(w.statistic)},
                      {"p_faster", num(w.p)},
                      {"n", w.n},
                      {"zeros", w.zeros},
                      {"ties", w.ties},
                      {"method", stats::method_name(w.method)},
                      {"why_none", w.why_none.empty() ? nlohmann::json(nullptr) : nlohmann::json(w.why_none)}};
    ja["rss_ratio"] = num(arm.rss_ratio);
    ja["vm_ratio"] = num(arm.vm_ratio);
    auto& left = ja["left_out"] = nlohmann::json::array();
    for (const auto& l : arm.left_out) left.push_back({{"round", l.round + 1}, {"why", l.why}});
    auto& rounds = ja["rounds"] = nlohmann::json::array();
    for (const auto& r : arm.pairs)
      rounds.push_back({{"round", r.round + 1},
                        {"host", r.host},
                        {"cpu", r.cpu},
                        {"ratio", num(r.ratio)},
                        {"log_ratio", num(r.log_ratio)},
                        {"rss_ratio", num(r.rss_ratio)},
                        {"vm_ratio", num(r.vm_ratio)}});
    arms.push_back(std::move(ja));
  }
  return j;
}

}  // namespace

util::Table hosts_table(const Paired& p) { return groups_table(p, p.by_host, true); }
util::Table cpus_table(const Paired& p) { return groups_table(p, p.by_cpu, false); }

bool several_nodes(const Paired& p) { return p.by_host.size() > 1 || p.by_cpu.size() > 1; }

util::Table outputs_table(const Spec& spec, const std::vector<ArmStats>& arms) {
  util::Table t;
  t.headers = {"output"};
  for (const auto& a : arms) t.headers.push_back(a.name);
  t.right_aligned.assign(t.headers.size(), false);
  for (const auto& name : output_names(spec)) {
    std::vector<std::string> row{name};
    for (const auto& a : arms) {
      auto v = a.outputs.find(name);
      row.push_back(v == a.outputs.end() ? "-" : verdict_cell(v->second));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

namespace {

// hyperfine's --export-json entries (results[]: command, mean, stddev, median, user, system, min,
// max, times, exit_codes), so its plotting scripts read ours; times are the successful runs',
// exit_codes every measured run's (null when killed or unrecorded). Our own figures stay in arms[].
nlohmann::json hyperfine_results(const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms) {
  auto out = nlohmann::json::array();
  std::string cmd = report::command_line(spec.command);
  for (std::size_t a = 0; a < arms.size(); ++a) {
    const auto& s = arms[a];
    auto codes = nlohmann::json::array();
    for (const auto& r : o.runs)
      if (r.arm == int(a)) codes.push_back(r.record.exit_code ? nlohmann::json(*r.record.exit_code) : nlohmann::json(nullptr));
    double user = 0, sys = 0;
    for (const auto& r : o.runs)
      if (r.arm == int(a) && r.ok) user += r.record.user_s, sys += r.record.sys_s;
    double n = double(s.ok);
    nlohmann::json e;
    e["command"] = s.name + ": " + cmd;
    e["mean"] = s.ok ? num(s.wall_s.mean) : nlohmann::json(nullptr);
    e["stddev"] = num(s.wall_sd);
    e["median"] = s.ok ? num(s.wall_s.median) : nlohmann::json(nullptr);
    e["user"] = s.ok ? num(user / n) : nlohmann::json(nullptr);
    e["system"] = s.ok ? num(sys / n) : nlohmann::json(nullptr);
    e["min"] = s.ok ? num(s.wall_s.min) : nlohmann::json(nullptr);
    e["max"] = s.ok ? num(s.wall_s.max) : nlohmann::json(nullptr);
    e["times"] = s.wall;
    e["exit_codes"] = codes;
    e["parameters"] = {{"arm", s.name}, {"profile", s.profile}};
    e["memory_usage_byte"] = nlohmann::json::array();
    for (double kb : s.rss_kb) e["memory_usage_byte"].push_back(std::llround(kb * 1024));
    out.push_back(std::move(e));
  }
  return out;
}

// The paired analysis ("paired") and its per-node breakdown ("by_node").
void add_paired(nlohmann::json& j, const Paired& paired) {
  j["paired"] = paired_json(paired);
  j["by_node"] = {{"hosts", groups_json(paired, paired.by_host, true)},
                  {"cpus", groups_json(paired, paired.by_cpu, false)},
                  {"warnings", paired.warnings}};
}

// What was asked for: the command, the schedule and what was compared.
void add_spec(nlohmann::json& j, const Spec& spec) {
  j["command"] = spec.command;
  j["runs_per_arm"] = spec.runs;
  j["warmup"] = spec.warmup;
  j["jobs"] = spec.jobs;
  j["seed"] = spec.seed;
  j["fresh_copy"] = spec.fresh_copy;
  j["on"] = spec.fresh_copy.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.on);
  j["compare_outputs"] = spec.compare ? nlohmann::json({{"files", spec.compare_outputs},
                                                         {"stdout", spec.compare_stdout},
                                                         {"stdout_filter", spec.stdout_filter.empty()
                                                                               ? nlohmann::json(nullptr)
                                                                               : nlohmann::json(spec.stdout_filter)}})
                                      : nlohmann::json(nullptr);
}

// Where and how it ran: the machine, whether it was cut short, and a farm's every round's state.
void add_conditions(nlohmann::json& j, const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms) {
  j["machine"] = o.machine;
  j["physical_cores"] = o.physical_cores;
  j["interrupted"] = o.interrupted;
  j["load_average"] = {{"before", num(o.load_before)}, {"after", num(o.load_after)}};
  j["warnings"] = all_warnings(spec, o, arms);
  if (!o.rounds.empty()) {  // a farm's: every round's state; "round" counts from 1 as the runs' do
    auto& rounds = j["rounds"] = nlohmann::json::array();
    for (const auto& r : o.rounds)
      rounds.push_back({{"round", r.round + 1}, {"task_index", r.round}, {"state", r.state}, {"detail", r.detail}});
  }
}

// How each figure was computed, so a reader of the file needs no other document.
nlohmann::json statistics_methods() {
  return {{"percentiles", "linear interpolation (numpy default)"},
          {"p_value", "one-sided Mann-Whitney U vs the first arm, H1: this arm is faster; exact without ties when an "
                      "arm has <= 8 runs, else normal approximation with tie correction and continuity correction"},
          {"ci", "percentile bootstrap, 10000 resamples, of median(arm)/median(first arm)"},
          {"paired", "per round (runs of one round share a node and a moment): ratio = median over rounds of "
                     "wall(arm)/wall(first arm) in the same round; ci95: percentile bootstrap, 10000 resamples "
                     "of rounds, of that median; p_faster: one-sided Wilcoxon signed-rank on the rounds' log "
                     "ratios, H1: the arm is faster, zero differences dropped, exact with <= 50 rounds and no "
                     "ties, else normal approximation with tie correction, no continuity correction"},
          {"verdict", "each arm judged on the paired ratio and its ci95 with >= " + std::to_string(kVerdictMinPairs) +
                          " rounds (p_faster: Wilcoxon), else on the median ratio and its bootstrap CI (p_faster: "
                          "Mann-Whitney); clearly_faster: the CI's upper end below 1 and no failed run; winner: the "
                          "clearly faster arm of lowest ratio"},
          {"by_node", "rounds grouped by host and by CPU model (from the runs' records; unknown: none named, "
                      "mixed: a round's runs named several); warning when two CPU models with >= 3 pairs "
                      "each differ by two-sided Mann-Whitney p < 0.05 on the log ratios and by more than 5% "
                      "in median ratio"}};
}

// What the summary decides, figure by figure: each arm's judged ratio (paired over rounds from
// kVerdictMinPairs rounds, as the terminal table shows it), its CI and p, whether it is clearly
// faster, and the winner. A reader of the file (the suite's pages, a CI job) takes these values
// rather than judging again by a rule of its own.
nlohmann::json verdict_json(const Verdict& v) {
  nlohmann::json j;
  auto& arms = j["arms"] = nlohmann::json::array();
  for (const auto& a : v.arms)
    arms.push_back({{"name", a.name},
                    {"ratio", num(a.ratio)},
                    {"ci95", a.ci ? nlohmann::json::array({num(a.ci->lo), num(a.ci->hi)}) : nlohmann::json(nullptr)},
                    {"p_faster", num(a.p)},
                    {"paired", a.paired},
                    {"clearly_faster", a.clearly_faster}});
  j["winner"] = v.winner ? nlohmann::json(v.arms[*v.winner - 1].name) : nlohmann::json(nullptr);
  j["advice"] = v.advice;
  return j;
}

// One run as measured, failed runs included with why.
nlohmann::json run_json(const ArmRun& r) {
  const auto& rec = r.record;
  nlohmann::json jr = {{"round", r.round + 1},    {"order", r.order},         {"ok", r.ok},
                       {"wall_s", rec.wall_s},    {"user_s", rec.user_s},     {"sys_s", rec.sys_s},
                       {"max_rss_kb", rec.max_rss_kb}, {"start_unix", rec.start_unix},
                       {"host", rec.host},        {"cpu", rec.cpu}};
  jr["vm_peak_kb"] = rec.vm_peak_kb ? nlohmann::json(*rec.vm_peak_kb) : nlohmann::json(nullptr);
  jr["exit_code"] = rec.exit_code ? nlohmann::json(*rec.exit_code) : nlohmann::json(nullptr);
  jr["signal"] = rec.signal ? nlohmann::json(*rec.signal) : nlohmann::json(nullptr);
  jr["allocator_verified"] = rec.allocator_verified ? nlohmann::json(*rec.allocator_verified) : nlohmann::json(nullptr);
  if (!r.ok) jr["failure"] = r.failure;
  if (!r.hashes.empty()) jr["sha256"] = r.hashes;
  return jr;
}

// Each compared output's verdict; null when outputs were not compared.
nlohmann::json outputs_json(const Spec& spec, const ArmStats& s) {
  auto verdicts = spec.compare ? nlohmann::json::object() : nlohmann::json(nullptr);
  for (const auto& [name, v] : s.outputs)
    verdicts[name] = {{"verdict", kind_name(v.kind)},
                      {"distinct", v.distinct},
                      {"missing_runs", v.missing_runs},
                      {"same_as_first", v.same_as_first ? nlohmann::json(*v.same_as_first) : nlohmann::json(nullptr)}};
  return verdicts;
}

// One arm's figures (arms[] in the file), with its runs; `a` is its index in the spec.
nlohmann::json arm_json(const Spec& spec, const BenchResult& o, const ArmStats& s, std::size_t a) {
  nlohmann::json arm;
  arm["name"] = s.name;
  arm["profile"] = s.profile;
  arm["ok"] = s.ok;
  arm["failed"] = s.failed;
  arm["failures"] = s.failures;
  arm["env_bytes"] = s.env_bytes;
  arm["wall_s"] = {{"mean", num(s.wall_s.mean)}, {"median", num(s.wall_s.median)}, {"p5", num(s.wall_s.p5)},
                   {"p95", num(s.wall_s.p95)},   {"min", num(s.wall_s.min)},       {"max", num(s.wall_s.max)}};
  arm["ratio_to_first"] = {{"mean", num(s.mean_ratio)}, {"median", num(s.median_ratio)}, {"p5", num(s.p5_ratio)},
                           {"p95", num(s.p95_ratio)},   {"peak_rss", num(s.rss_ratio)},
                           {"peak_vm", num(s.vm_ratio)}};
  if (s.test)
    arm["mann_whitney"] = {{"u", s.test->u}, {"p_faster", num(s.test->p)}, {"exact", s.test->exact}, {"ties", s.test->ties}};
  else
    arm["mann_whitney"] = nullptr;
  arm["median_ratio_ci95"] =
      s.median_ratio_ci ? nlohmann::json::array({num(s.median_ratio_ci->lo), num(s.median_ratio_ci->hi)}) : nlohmann::json(nullptr);
  arm["peak_rss_kb_median"] = num(s.rss_median_kb);
  arm["peak_vm_kb_median"] = num(s.vm_median_kb);
  arm["verified_share"] = s.verified_share ? nlohmann::json(*s.verified_share) : nlohmann::json(nullptr);
  arm["outputs_summary"] = spec.compare ? nlohmann::json(s.outputs_summary) : nlohmann::json(nullptr);
  arm["outputs"] = outputs_json(spec, s);
  auto& runs = arm["runs"] = nlohmann::json::array();
  for (const auto& r : o.runs)
    if (r.arm == int(a)) runs.push_back(run_json(r));
  return arm;
}

}  // namespace

// Keys land sorted (nlohmann::json's objects are ordered maps), so the order the steps add them
// in does not show in the file.
std::string bench_json(const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms) {
  nlohmann::json j;
  add_spec(j, spec);
  add_conditions(j, spec, o, arms);
  j["statistics"] = statistics_methods();
  auto& out = j["arms"] = nlohmann::json::array();
  for (std::size_t a = 0; a < arms.size(); ++a) out.push_back(arm_json(spec, o, arms[a], a));
  j["results"] = hyperfine_results(spec, o, arms);
  auto note = vm_note(arms);
  j["peak_vm_note"] = note.empty() ? nlohmann::json(nullptr) : nlohmann::json(note);
  auto paired = analyse_paired(spec, o);
  add_paired(j, paired);
  j["verdict"] = verdict_json(decide(spec, arms, tool_name(spec.command), &paired));
  return j.dump(2);
}

}  // namespace bench
