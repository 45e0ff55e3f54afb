#include "commands/tune.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <ctime>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>

#include "alloc/registry.hpp"
#include "bench/analysis.hpp"
#include "bench/runner.hpp"
#include "bench/svg.hpp"
#include "bench/sweep.hpp"
#include "bench/verdict.hpp"
#include "commands/bench_farm.hpp"
#include "commands/report.hpp"
#include "commands/measure.hpp"
#include "report/aggregate.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"
#include "util/voice.hpp"

namespace commands {
namespace {

// Everything tune says on stderr.
const util::Voice voice("edashim tune");
// A step on a farm is a bench experiment (bench collect reads its directory): its progress and
// its unfinished rounds are said as bench says them, with bench's commands to go on.
const util::Voice farm_step_voice("edashim bench");

struct Options {
  bench::Spec spec;  // the command and how to run it; each step's arms are tune's own
  std::vector<std::string> option_texts;
  std::string allocator, plot, write, write_ended;
  // Either or both; neither: peak RSS <= kDefaultRssRatio x baseline.
  std::optional<double> max_rss_ratio, max_vm_ratio;
  bool force = false;
  std::string export_json;  // every step's candidates, the budget and the result, as JSON
  FarmOptions farm;
};

// One step's bench, here or on a farm: there each step is an experiment of its own in
// DIR/step-N, submitted, waited for, and collected as `bench collect` would.
util::Result<bench::BenchResult> bench_step(const Options& o, const bench::Spec& spec, std::size_t i) {
  if (o.farm.executor == "local") return bench::run(spec, preview_arm);
  if (auto checked = bench::check(spec, preview_arm); !checked) return std::move(checked).take_error();
  // The tune's own directory first, under the one rule (0700, or 0750 among shared_dirs): each
  // step is an experiment made inside it.
  if (auto bad = farm::make_experiment_dir(farm_dir(o.farm), user_shared_dirs()); !bad) return std::move(bad).take_error();
  FarmOptions f = o.farm;
  f.dir = farm_dir(o.farm) + "/step-" + std::to_string(i + 1);
  auto e = start_farm(spec, f);
  if (!e) return std::move(e).take_error();
  bool interrupted = false;
  auto c = collect_farm(f.dir, *e, true, interrupted, farm_step_voice);
  if (!c.count["done"] || c.count["done"] < spec.runs) say_rounds(f.dir, c, spec.runs, farm_step_voice);
  c.outcome.interrupted = interrupted;
  return c.outcome;
}

constexpr double kDefaultRssRatio = 1.05;
constexpr const char* kLocalOnly = "--setup, --prepare and --cleanup are for a local tune: a farm's tasks do not run them";

bench::Budget budget_of(const Options& o) {
  bench::Budget b{o.max_rss_ratio, o.max_vm_ratio};
  if (!b.max_rss_ratio && !b.max_vm_ratio) b.max_rss_ratio = kDefaultRssRatio;
  return b;
}

// Without a budget given, the peak-RSS budget is kDefaultRssRatio times the current setting's
// (step 1's "(current)" against baseline): an allocator that already uses 9% more than glibc
// would otherwise start every tune over budget, and memory, not speed, would decide each step.
// Returns the note that says so; "" when the budget was given or the figure is unknown.
std::string default_budget_from_current(const Options& o, double current_rss_ratio, bench::Budget& budget) {
  if (o.max_rss_ratio || o.max_vm_ratio || !(current_rss_ratio > 0)) return "";
  budget.max_rss_ratio = kDefaultRssRatio * current_rss_ratio;
  std::string note = "budget: peak RSS <= " + bench::ratio(*budget.max_rss_ratio) + " baseline, that is " +
                     util::fixed(kDefaultRssRatio, 2) + " x the current setting's " + bench::ratio(current_rss_ratio) +
                     " (the default; --max-rss-ratio sets another)";
  voice.say(note);
  return note;
}

using bench::wrap;

using Settings = std::map<std::string, std::map<std::string, std::string>>;  // family -> key -> value

struct Step {
  std::string option;
  std::vector<bench::Candidate> candidates;
  std::optional<std::size_t> chosen;
  bool within = true;
  std::optional<bench::ArmStats> chosen_vs_baseline;  // the kept setting's figures against baseline
};

std::string allocator_for_family(const std::string& family) { return family == "glibc" ? "system" : family; }

// The bench of one step: baseline, the option unset (the current setting), then each value,
// with `fixed` (earlier steps' choices) in every candidate. Profiles are written into `dir`.
std::optional<bench::Spec> step_spec(const Options& o, const bench::TuneOption& opt, const std::string& allocator,
                                     const Settings& fixed, const std::string& dir, int& file_no, std::size_t i) {
  bench::Spec spec = o.spec;
  spec.seed = o.spec.seed + i;
  spec.arms = {{"baseline", "baseline"}};
  std::vector<std::string> values{""};
  values.insert(values.end(), opt.values.begin(), opt.values.end());
  for (const auto& v : values) {
    auto settings = fixed;
    if (!v.empty()) settings[opt.family][opt.key] = v;
    std::string path = dir + "/candidate-" + std::to_string(++file_no) + ".toml";
    if (!util::write_file_atomic(path, bench::profile_toml(allocator, settings))) return std::nullopt;
    spec.arms.push_back({v.empty() ? "(current)" : opt.key + "=" + v, path});
  }
  return spec;
}

// Where --write and --plot go must be writable before anything runs.
util::Status check_destination(const std::string& option, const std::string& path) {
  if (path.empty()) return util::Ok{};
  std::string dir = util::dirname(path);
  if (!util::is_directory(dir)) return util::fail(option + " " + path + ": no directory " + dir + " to write it in");
  if (::access(dir.c_str(), W_OK) != 0) return util::fail(option + " " + path + ": the directory " + dir + " is not writable");
  if (util::is_directory(path)) return util::fail(option + " " + path + ": is a directory; name a file");
  return util::Ok{};
}

nlohmann::json number(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

// The table and the summary as data: the same steps, the same verdict.
std::string tune_json(const Options& o, const std::string& allocator, const bench::Budget& budget, bool budget_default,
                      const std::vector<Step>& steps, const std::string& verdict, const std::string& setting, bool written) {
  nlohmann::json j;
  j["command"] = o.spec.command;
  j["allocator"] = allocator;
  j["runs_per_setting"] = o.spec.runs;
  j["budget"] = {{"max_rss_ratio", budget.max_rss_ratio ? nlohmann::json(*budget.max_rss_ratio) : nlohmann::json(nullptr)},
                 {"max_vm_ratio", budget.max_vm_ratio ? nlohmann::json(*budget.max_vm_ratio) : nlohmann::json(nullptr)},
                 {"default_from_current_setting", budget_default},
                 {"relative_to", "baseline"}};
  auto& js = j["steps"] = nlohmann::json::array();
  for (const auto& st : steps) {
    nlohmann::json step{{"option", st.option}, {"within_budget", st.within}};
    step["kept"] = st.chosen ? nlohmann::json(st.candidates[*st.chosen].value) : nlohmann::json(nullptr);
    auto& cands = step["candidates"] = nlohmann::json::array();
    for (std::size_t c = 0; c < st.candidates.size(); ++c) {
      const auto& cand = st.candidates[c];
      nlohmann::json jc{{"value", cand.value.empty() ? nlohmann::json(nullptr) : nlohmann::json(cand.value)},
                        {"ok", cand.ok},
                        {"median_s", number(cand.median_s)},
                        {"wall_ratio", number(cand.wall_ratio)},
                        {"rss_ratio", number(cand.rss_ratio)},
                        {"vm_ratio", number(cand.vm_ratio)},
                        {"in_budget", budget.holds(cand)},
                        {"kept", st.chosen == c}};
      if (c > 0)
        jc["vs_current"] = {{"faster", cand.vs_current.faster},
                            {"p", cand.vs_current.p ? nlohmann::json(*cand.vs_current.p) : nlohmann::json(nullptr)},
                            {"ci95", cand.vs_current.ci ? nlohmann::json::array({cand.vs_current.ci->lo, cand.vs_current.ci->hi})
                                                        : nlohmann::json(nullptr)},
                            {"why", cand.vs_current.why}};
      cands.push_back(std::move(jc));
    }
    js.push_back(std::move(step));
  }
  j["result"] = {{"faster_than_baseline", verdict.empty() && !setting.empty()},
                 {"verdict", verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(verdict)},
                 {"setting_toml", setting.empty() ? nlohmann::json(nullptr) : nlohmann::json(setting)},
                 {"written", written}};
  return json_text(j) + "\n";
}

std::string kept_summary(const std::vector<Step>& steps);

// The summary from the steps the table shows, then, when nothing qualifies to be written (no
// snippet), why, against baseline. True when that is tune's end.
bool say_summary(const std::vector<Step>& steps, const std::string& setting, const std::string& verdict,
                 const std::string& snippet, const std::string& write) {
  std::cout << kept_summary(steps) << "\n";
  if (!snippet.empty()) return false;
  std::cout << wrap("Result: " + setting + " is " + verdict + ". No profile " +
                        (write.empty() ? "change." : "written to " + write + "."), 100) << "\n";
  return true;
}

// --export-json's file, written whole or not at all.
bool export_json(const std::string& file, const std::string& json) {
  bool ok = util::write_file_atomic(file, json);
  voice(ok ? "JSON written to " : "cannot write ", file);
  return ok;
}

// The line above the table: the budget and the rule that keeps a value, wrapped.
std::string tune_header(const bench::Budget& budget, bool budget_default) {
  return wrap("Trade-off (each step interleaved with baseline; budget: " + budget.describe() +
                  (budget_default ? " (the default: 1.05 x the current setting's)" : "") +
                  "; a value is kept only when faster than the current setting with p < " + util::fixed(bench::kAlpha, 2) +
                  " and the CI of the median ratio below 1, or, while the current setting is over budget, when it is "
                  "the fastest within it or else the closest to it; peak VM: the largest VmPeak over a run's processes):",
              100);
}

// What each step kept, from the same steps as the table's "<-": "Kept: jemalloc.narenas=4 (step
// 1); the current setting of jemalloc.dirty_decay_ms (step 2)".
std::string kept_summary(const std::vector<Step>& steps) {
  std::vector<std::string> parts, options;
  bool all_current = !steps.empty();
  for (const auto& st : steps) {
    options.push_back(st.option);
    all_current = all_current && st.chosen && st.candidates[*st.chosen].value.empty();
  }
  if (all_current)
    return wrap("Kept: nothing measured beat the current setting in any step (" + util::join(options, ", ") + ").", 100, 2);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& st = steps[i];
    std::string where = " (step " + std::to_string(i + 1) + (st.within ? "" : ", over budget") + ")";
    if (!st.chosen) parts.push_back("nothing for " + st.option + where + ": no run succeeded");
    else if (st.candidates[*st.chosen].value.empty()) parts.push_back("the current setting of " + st.option + where);
    else parts.push_back(st.option + "=" + st.candidates[*st.chosen].value + where);
  }
  return wrap("Kept: " + (parts.empty() ? std::string("nothing (no step ran)") : util::join(parts, "; ")) + ".", 100, 2);
}

// tune's refusal of what it was asked, before anything ran: each line of the reason on its own, status 2.
int usage(const std::string& message) { return voice.fail(message, 2); }

// What every step shares: the options swept, in order, the allocator tuned, and tune's own
// temporary directory for the candidates' profiles, numbered across the check and every step
// so that no file is written twice.
struct Tune {
  const Options& o;
  std::vector<bench::TuneOption> options;
  std::string allocator;
  std::string dir;
  int file_no = 0;
};

// What the sweep found, for the table and the outputs.
struct Sweep {
  bench::Budget budget;
  std::string budget_note;  // set when the budget is the default, from the current setting's figure
  Settings fixed;           // the values kept so far, fixed in every later step
  std::vector<Step> steps;  // the steps that ran, in order
  std::vector<bench::TradeoffPoint> points;
  std::string vm_why;  // why some candidate has no peak virtual size, said once under the table
  int rc = 0;          // not 0: the sweep stopped early, and tune ends with this status
};

// Where the search ended. `figures` and `setting` describe it for --write (when it qualifies)
// and --write-ended (whatever the verdict) alike; `snippet` is what --write writes, empty when
// nothing qualifies, and then `verdict` says why.
struct Ending {
  std::string snippet, verdict, figures, setting;
};

util::Result<std::vector<bench::TuneOption>> parse_options(const std::vector<std::string>& texts) {
  std::vector<bench::TuneOption> options;
  for (const auto& t : texts) {
    auto opt = bench::parse_tune_option(t);
    if (!opt) return util::fail("--option " + t + ": " + opt.error());
    options.push_back(*opt);
  }
  return options;
}

// What the command line alone shows wrong, before tune makes anything: a file --write or
// --write-ended would replace unasked, an output with nowhere to go, a farm that cannot run it.
util::Status check_request(const Options& o) {
  for (const auto& file : {o.write, o.write_ended})
    if (!file.empty() && util::exists(file) && !o.force)
      return util::fail(file + " exists; choose another file or add --force to replace it");
  for (const auto& [option, path] :
       {std::pair{"--write", o.write}, std::pair{"--plot", o.plot}, std::pair{"--write-ended", o.write_ended},
        std::pair{"--export-json", o.export_json}})
    if (auto writable = check_destination(option, path); !writable) return writable;
  if (auto bad = check_farm_options(o.farm, o.spec, "tune"); !bad.empty()) return util::fail(bad);
  if (o.farm.executor != "local" && !(o.spec.setup + o.spec.prepare + o.spec.cleanup).empty()) return util::fail(kLocalOnly);
  return util::Ok{};
}

// Every option swept must be the tuned allocator's: another's does nothing in its runs (a
// jemalloc option on mimalloc's), and a sweep of it would only measure noise.
util::Status check_one_allocator(const std::vector<bench::TuneOption>& options, const std::string& allocator,
                                 bool from_first_option) {
  for (const auto& opt : options)
    if (alloc::options_family_of(allocator) != opt.family)
      return util::fail("--option " + opt.family + "." + opt.key + " is " + opt.family + "'s, and the runs use " +
                        allocator + (from_first_option ? " (the first option's)" : " (--allocator " + allocator + ")") +
                        ": it would change nothing in them. Tune one allocator at a time: " +
                        (from_first_option ? "" : "drop --allocator or ") + "give only " + allocator + "'s options");
  return util::Ok{};
}

util::Result<std::string> make_work_dir() {
  std::string tmp = "/tmp";
  if (const char* t = std::getenv("TMPDIR"); t && *t) tmp = t;
  std::string dir = tmp + "/edashim-tune-XXXXXX";
  if (!::mkdtemp(dir.data())) return util::fail("cannot create a directory in " + tmp);
  return dir;
}

// A budget on a figure no run will have would keep nothing, or worse, seem to: refuse it.
util::Status check_vm_budget_measurable(const bench::Spec& spec, const bench::Checked& checked) {
  for (std::size_t a = 0; a < checked.probe_off.size(); ++a)
    if (!checked.probe_off[a].empty())
      return util::fail("--max-vm-ratio needs each run's peak virtual size (VmPeak, which the probe records), but the "
                        "probe would be off for " + spec.arms[a].name + ": " + checked.probe_off[a] +
                        "; turn the probe on or budget on peak RSS alone (--max-rss-ratio)");
  return util::Ok{};
}

// Step i's bench checked as it would run, without earlier steps' choices (not made yet).
util::Status check_step(Tune& t, std::size_t i, const bench::Budget& budget) {
  auto spec = step_spec(t.o, t.options[i], t.allocator, {}, t.dir, t.file_no, i);
  if (!spec) return util::fail("cannot write candidate profiles in " + t.dir);
  auto checked = bench::check(*spec, preview_arm);
  if (!checked) return std::move(checked).take_error();
  if (budget.max_vm_ratio) return check_vm_budget_measurable(*spec, *checked);
  return util::Ok{};
}

// The candidate files are tune's own: a check's reason names the option and value, not the
// temporary file, and says once what several candidates share.
std::string without_candidate_files(const std::string& error, const std::string& dir) {
  // The directory is matched as text, never made part of the pattern: TMPDIR may hold
  // anything, '(' or '+' included.
  static const std::regex candidate_file("^/candidate-[0-9]+\\.toml(:[0-9]+)*: ");
  std::string named;
  for (std::size_t at = 0; at < error.size();) {
    std::size_t hit = error.find(dir + "/candidate-", at);
    if (hit == std::string::npos) {
      named += error.substr(at);
      break;
    }
    named += error.substr(at, hit - at);
    std::string rest = error.substr(hit + dir.size());
    std::smatch m;
    bool ours = std::regex_search(rest, m, candidate_file);
    if (!ours) named += dir;
    at = hit + dir.size() + (ours ? std::size_t(m.length(0)) : 0);
  }
  std::string said;
  for (const auto& line : util::split(named, '\n'))
    if (said.find(line.substr(line.find(": ") + 2)) == std::string::npos) said += line + "\n";
  return said.substr(0, said.size() - 1);
}

// Every step's every value is checked before the first run: an option the installed
// allocator does not know stops tune here, not after an hour of sweeping.
util::Status check_every_step(Tune& t, const bench::Budget& budget) {
  for (std::size_t i = 0; i < t.options.size(); ++i)
    if (auto checked = check_step(t, i, budget); !checked)
      return util::fail(without_candidate_files(checked.error(), t.dir));
  return util::Ok{};
}

void warn_when_too_few_runs(std::size_t n) {
  if (double p = bench::smallest_p(n, n); p >= bench::kAlpha)
    voice("warning: with -n ", n, " no difference can show (the smallest p that ", n, " runs against ", n,
          " can give is ", util::fixed(p, 4), "), so nothing will replace the current setting; use -n 4 or more");
}

// What the runs said that the table does not: the bench's warnings and each failed run.
void say_run_problems(const bench::BenchResult& outcome, const std::vector<bench::ArmStats>& arms) {
  std::string text;
  for (const auto& w : outcome.warnings) text += "warning: " + w + "\n";
  for (const auto& a : arms)
    for (const auto& f : a.failures) text += a.name + " failed, " + f + "\n";
  if (!text.empty()) voice.say(text);
}

// A step's candidates from its arms (baseline, the current setting, then each value). A value
// is weighed against the current setting, since that is what it would replace.
std::vector<bench::Candidate> candidates_of(const bench::TuneOption& opt, const std::vector<bench::ArmStats>& arms,
                                            uint64_t seed) {
  std::vector<bench::Candidate> candidates;
  for (std::size_t c = 0; c + 1 < arms.size(); ++c) {
    const auto& a = arms[c + 1];
    bench::Candidate cand{c == 0 ? "" : opt.values[c - 1], a.wall_s.median, a.median_ratio, a.rss_ratio, a.ok, {},
                          a.vm_ratio};
    if (c > 0) cand.vs_current = bench::weigh(a.wall, arms[1].wall, seed + c);
    candidates.push_back(cand);
  }
  return candidates;
}

void note_missing_vm(const std::vector<bench::ArmStats>& arms, std::size_t i, Sweep& sweep) {
  auto note = bench::vm_note(arms);
  if (note.empty()) return;
  if (sweep.vm_why.empty()) sweep.vm_why = note;
  if (sweep.budget.max_vm_ratio)
    voice("warning: step ", i + 1, ": ", note, "; a candidate without the figure counts as over the --max-vm-ratio budget");
}

// The kept value is fixed in every later step; every candidate becomes a point of the plot.
void keep(const bench::TuneOption& opt, Step step, Sweep& sweep) {
  const auto& kept = step.candidates[*step.chosen];
  if (!kept.value.empty()) sweep.fixed[opt.family][opt.key] = kept.value;
  for (const auto& cand : step.candidates)
    sweep.points.push_back({step.option + "=" + (cand.value.empty() ? "(current)" : cand.value), cand.rss_ratio,
                            cand.wall_ratio, false, sweep.budget.holds(cand), cand.vm_ratio});
  sweep.steps.push_back(std::move(step));
}

// Step i: its bench, run and analysed, then the value it keeps. 0 to go on to the next step,
// else the status tune ends with.
int run_step(Tune& t, std::size_t i, Sweep& sweep) {
  const auto& opt = t.options[i];
  Step step;
  step.option = opt.family + "." + opt.key;
  auto spec = step_spec(t.o, opt, t.allocator, sweep.fixed, t.dir, t.file_no, i);
  if (!spec) return voice.fail("cannot write candidate profiles in " + t.dir);
  voice("step ", i + 1, "/", t.options.size(), ": ", step.option, " over ", opt.values.size(), " values (+ current), ",
        t.o.spec.runs, " runs each, interleaved with baseline");
  auto outcome = bench_step(t.o, *spec, i);
  if (!outcome) return voice.fail(outcome.error(), 2);
  auto arms = bench::analyse(*spec, *outcome, 2000);
  say_run_problems(*outcome, arms);
  step.candidates = candidates_of(opt, arms, spec->seed);
  note_missing_vm(arms, i, sweep);
  if (i == 0 && !step.candidates.empty())
    sweep.budget_note = default_budget_from_current(t.o, step.candidates[0].rss_ratio, sweep.budget);
  step.chosen = bench::choose(step.candidates, sweep.budget, step.within);
  if (!step.chosen) {
    voice("no run of ", step.option, " succeeded; stopping");
    sweep.steps.push_back(step);
    return 1;
  }
  step.chosen_vs_baseline = arms[*step.chosen + 1];
  keep(opt, std::move(step), sweep);
  return outcome->interrupted ? 130 : 0;
}

// Every step's candidates, a row each; "<-" marks the value the step kept.
util::Table steps_table(const std::vector<Step>& steps, const bench::Budget& budget) {
  util::Table t;
  t.headers = {"step", "option", "value", "ok", "median s", "wall / baseline", "peak RSS / baseline",
               "peak VM / baseline", "in budget", "vs current (p, CI of median ratio)", "kept"};
  t.right_aligned = {true, false, false, true, true, true, true, true, false, false, false};
  for (std::size_t i = 0; i < steps.size(); ++i)
    for (std::size_t c = 0; c < steps[i].candidates.size(); ++c) {
      const auto& cand = steps[i].candidates[c];
      t.rows.push_back({std::to_string(i + 1), steps[i].option, cand.value.empty() ? "(current)" : cand.value,
                        std::to_string(cand.ok), util::fixed(cand.median_s, 3), bench::ratio(cand.wall_ratio),
                        bench::ratio(cand.rss_ratio), bench::ratio(cand.vm_ratio), budget.holds(cand) ? "yes" : "no",
                        c == 0 ? "-" : cand.vs_current.why, steps[i].chosen == c ? "<-" : ""});
    }
  return t;
}

void say_table(const Sweep& sweep) {
  std::cout << tune_header(sweep.budget, !sweep.budget_note.empty()) << "\n\n"
            << util::render_text(steps_table(sweep.steps, sweep.budget)) << "\n";
  if (!sweep.vm_why.empty()) std::cout << "Peak VM \"-\": " << sweep.vm_why << ".\n\n";
}

std::string today_utc() {
  char when[32];
  time_t now = time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
  return when;
}

// The final setting against baseline, from the last step, where it was measured with every
// earlier choice fixed: written only when faster on the same evidence, within the budget. A
// sweep that stopped early ends nowhere. `today` dates the snippet.
Ending end_of_search(const Options& o, const std::string& allocator, const Sweep& sweep, const std::string& today) {
  Ending end;
  if (sweep.rc != 0 || sweep.steps.empty() || !sweep.steps.back().chosen_vs_baseline) return end;
  const auto& last = sweep.steps.back();
  const auto& best = last.candidates[*last.chosen];
  const auto& stats = *last.chosen_vs_baseline;
  auto evidence = bench::judge(stats.test, stats.median_ratio_ci);
  if (!last.within) end.verdict = "over the memory budget (" + sweep.budget.over(best) + ")";
  else if (!evidence.faster) end.verdict = "not faster than baseline on the evidence (" + evidence.why + ")";
  end.figures = "# median wall " + bench::ratio(best.wall_ratio) + " baseline (" + evidence.why + "), peak RSS " +
                bench::ratio(best.rss_ratio) + ", peak virtual size " + bench::ratio(best.vm_ratio) + " (budget: " +
                sweep.budget.describe() + "), " + std::to_string(o.spec.runs) + " runs per setting\n";
  end.setting = bench::profile_toml(allocator, sweep.fixed);
  if (end.verdict.empty())
    end.snippet = "# Chosen by `edashim tune` on " + today + " for: " + report::command_line(o.spec.command) + "\n" +
                  end.figures + end.setting;
  return end;
}

// The plot marks the setting that is written.
void mark_written_point(Sweep& sweep) {
  const auto& last = sweep.steps.back();
  const auto& best = last.candidates[*last.chosen];
  for (auto& p : sweep.points)
    if (p.label == last.option + "=" + (best.value.empty() ? "(current)" : best.value)) p.chosen = true;
}

bool write_plot(const Options& o, const Sweep& sweep) {
  auto svg = bench::plot_tradeoff(sweep.points, sweep.budget.max_rss_ratio.value_or(bench::kNoFigure),
                                  "edashim tune: " + report::command_line(o.spec.command));
  if (util::write_file_atomic(o.plot, svg)) {
    voice("plot written to ", o.plot);
    return true;
  }
  voice("cannot write ", o.plot);
  return false;
}

// Where the search ended, whatever the verdict: what a lean search confirms on other
// workloads, and the best trade-off to report when nothing met the goal here.
bool write_ended(const Options& o, const Ending& end) {
  std::string header = "# Where `edashim tune` ended for: " + report::command_line(o.spec.command) + "\n# " +
                       (end.snippet.empty() ? "not written by --write: " + end.verdict : "also written by --write") + "\n";
  if (!util::write_file_atomic(o.write_ended, header + end.figures + end.setting)) {
    voice("cannot write ", o.write_ended);
    return false;
  }
  std::cout << "The setting the search ended on is in " << o.write_ended << "\n";
  return true;
}

int write_profile(const std::string& write, const std::string& snippet) {
  if (write.empty()) {
    std::cout << "Profile snippet:\n\n" << snippet;
  } else if (util::write_file_atomic(write, snippet)) {
    std::cout << "Profile written to " << write << " (use it: edashim run -p " << write << " -- ...)\n";
  } else {
    return voice.fail("cannot write " + write);
  }
  return 0;
}

// The plot and the JSON show what ran, even when the sweep stopped early; the profile files
// and the summary only come from a sweep that finished. A failed write makes the status 1
// unless the sweep's own status says more.
int write_outputs(const Tune& t, const Sweep& sweep, const Ending& end) {
  const Options& o = t.o;
  int rc = sweep.rc;
  if (!o.plot.empty() && !write_plot(o, sweep)) rc = rc ? rc : 1;
  if (!o.export_json.empty() &&
      !export_json(o.export_json, tune_json(o, t.allocator, sweep.budget, !sweep.budget_note.empty(), sweep.steps,
                                            end.verdict, end.setting, rc == 0 && !end.snippet.empty() && !o.write.empty())))
    rc = rc ? rc : 1;
  if (rc) return rc;
  if (!o.write_ended.empty() && !end.setting.empty() && !write_ended(o, end)) return 1;
  if (say_summary(sweep.steps, t.allocator + (sweep.fixed.empty() ? "" : " with the kept values"), end.verdict,
                  end.snippet, o.write))
    return 0;
  return write_profile(o.write, end.snippet);
}

// The passes of a tune: check the request and every step's candidates before anything runs,
// run the steps (coordinate search: each step with the values earlier steps kept), show the
// table, judge where the search ended, write what was asked for.
int run_tune(Options& o) {
  auto options = parse_options(o.option_texts);
  if (!options) return usage(options.error());
  std::string allocator = o.allocator.empty() ? allocator_for_family(options->front().family) : o.allocator;
  if (auto same = check_one_allocator(*options, allocator, o.allocator.empty()); !same) return usage(same.error());
  if (auto request = check_request(o); !request) return usage(request.error());
  auto dir = make_work_dir();
  if (!dir) return voice.fail(dir.error());
  Tune t{o, std::move(*options), "", *dir};
  t.allocator = allocator;
  Sweep sweep;
  sweep.budget = budget_of(o);
  if (auto checked = check_every_step(t, sweep.budget); !checked) {
    util::remove_tree(t.dir);
    return usage(checked.error());
  }
  warn_when_too_few_runs(std::size_t(o.spec.runs));
  for (std::size_t i = 0; i < t.options.size() && sweep.rc == 0; ++i) sweep.rc = run_step(t, i, sweep);
  util::remove_tree(t.dir);
  say_table(sweep);
  Ending end = end_of_search(o, t.allocator, sweep, today_utc());
  if (!end.snippet.empty()) mark_written_point(sweep);
  return write_outputs(t, sweep, end);
}

}  // namespace

Subcommand add_tune_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("tune", "Sweep allocator options on a command; keep what is faster on the evidence, "
                                         "within a peak-memory budget");
  cmd->add_option("--option", o->option_texts, "FAMILY.OPTION=V1,V2,...; several: swept one after another (coordinate search)")
      ->required();
  cmd->add_option("--allocator", o->allocator, "Allocator to tune (default: the first option's family)");
  // CLI::PositiveNumber would print its range's upper end, a 300-digit number.
  const CLI::Validator ratio(
      [](std::string& v) {
        char* end = nullptr;
        double d = std::strtod(v.c_str(), &end);
        return end != v.c_str() && *end == 0 && d > 0 && std::isfinite(d) ? std::string() : "a ratio above 0, such as 1.10, not " + v;
      },
      "RATIO > 0");
  cmd->add_option("--max-rss-ratio", o->max_rss_ratio,
                  "Peak-RSS budget relative to baseline (no budget given: 1.05 x the current setting's peak RSS)")
      ->check(ratio);
  cmd->add_option("--max-vm-ratio", o->max_vm_ratio,
                  "Peak-virtual-size budget (largest VmPeak over the processes, from the probe) relative to baseline")
      ->check(ratio);
  add_spec_options(cmd, o->spec);
  add_farm_options(cmd, o->farm);
  cmd->add_option("--plot", o->plot, "Write an SVG of the trade-off (wall vs peak memory, both / baseline)");
  cmd->add_option("--write", o->write, "Write the chosen profile here instead of printing it");
  cmd->add_option("--write-ended", o->write_ended,
                  "Also write the setting the search ended on, whatever the verdict (its header says it), for "
                  "confirming it elsewhere");
  cmd->add_flag("--force", o->force, "Replace an existing --write or --write-ended file");
  cmd->add_option("--export-json", o->export_json,
                  "Write every step's candidates, the budget and the result as JSON to FILE");
  cmd->add_option("command", o->spec.command, "TOOL [ARGS...] (after --)");
  cmd->footer(
      "Each step is one interleaved bench of baseline, the current setting (the option unset, earlier steps' choices\n"
      "fixed) and each listed value (coordinate search). A value replaces the current setting only when it is faster on\n"
      "the evidence, as bench reports it: one-sided Mann-Whitney p < 0.05 and the bootstrap 95% interval of the median\n"
      "ratio below 1 (with fewer than 4 runs per setting no difference can show), and it is within every budget given:\n"
      "median peak RSS within --max-rss-ratio of baseline's, median peak virtual size (VmPeak, from the probe) within\n"
      "--max-vm-ratio of baseline's (neither given: 1.05 x the current setting's peak RSS). While the current setting is over a budget,\n"
      "memory decides instead: the fastest value within every budget, else the value closest to them (by at least 1% of\n"
      "the budget), so that several options can reach a budget together. With --max-vm-ratio, tune stops with status 2\n"
      "before running when the probe would be off, and a candidate whose runs reported no VmPeak counts as over. The result is written only when it beats baseline on the same evidence; otherwise\n"
      "tune says that nothing measured beat the current setting, writes nothing, and exits 0. Every option and value is\n"
      "checked against the installed allocator before the first run (status 2 on a problem). Sweep on a small design,\n"
      "then confirm with edashim bench.\n"
      "Examples:\n"
      "  edashim tune --option mimalloc.eager_commit_delay=0,1,4 -n 10 -- yosys -q -s small.ys\n"
      "  edashim tune --option mimalloc.decommit_delay=0,10,100 --option mimalloc.eager_commit_delay=0,4 \\\n"
      "      --max-rss-ratio 1.05 -n 10 --plot tune.svg --write ~/.config/edashim/profiles/yosys-tuned.toml -- yosys ...");
  return {cmd, [o] { return run_tune(*o); }, &o->spec.command};
}

}  // namespace commands
