#include "commands/tune.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <ctime>
#include <iostream>
#include <memory>

#include "bench/analysis.hpp"
#include "bench/svg.hpp"
#include "commands/bench.hpp"
#include "report/aggregate.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"

namespace commands {
namespace {

struct Options {
  std::vector<std::string> option_texts;
  std::string allocator, plot, write, on = "disk";
  double max_rss_ratio = 1.05;
  int runs = 10, warmup = 1, jobs = 1;
  uint64_t seed = 20261130;
  bool force = false, no_progress = false;
  std::vector<std::string> fresh_copy, command;
};

struct Step {
  std::string option;
  std::vector<Candidate> candidates;
  std::optional<std::size_t> chosen;
  bool within = true;
};

std::string allocator_for_family(const std::string& family) { return family == "glibc" ? "system" : family; }

int run_tune(Options& o) {
  std::vector<TuneOption> options;
  for (const auto& t : o.option_texts) {
    std::string error;
    auto opt = parse_tune_option(t, error);
    if (!opt) {
      std::cerr << "edashim tune: --option " << t << ": " << error << "\n";
      return 2;
    }
    options.push_back(*opt);
  }
  std::string allocator = o.allocator.empty() ? allocator_for_family(options.front().family) : o.allocator;
  if (!o.write.empty() && util::exists(o.write) && !o.force) {
    std::cerr << "edashim tune: " << o.write << " exists; choose another file or add --force to replace it\n";
    return 2;
  }
  std::string tmp = "/tmp";
  if (const char* t = std::getenv("TMPDIR"); t && *t) tmp = t;
  std::string dir = tmp + "/edashim-tune-XXXXXX";
  if (!::mkdtemp(dir.data())) {
    std::cerr << "edashim tune: cannot create a directory in " << tmp << "\n";
    return 1;
  }
  std::map<std::string, std::map<std::string, std::string>> fixed;  // family -> key -> value
  std::vector<Step> steps;
  std::vector<bench::TradeoffPoint> points;
  int file_no = 0;
  int rc = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const auto& opt = options[i];
    Step step;
    step.option = opt.family + "." + opt.key;
    bench::Spec spec;
    spec.command = o.command;
    spec.runs = o.runs;
    spec.warmup = o.warmup;
    spec.jobs = o.jobs;
    spec.fresh_copy = o.fresh_copy;
    spec.on = o.on;
    spec.seed = o.seed + i;
    spec.progress = !o.no_progress;
    spec.arms.push_back({"baseline", "baseline"});
    // "(default)": the option unset, so that the sweep can conclude it is best left alone.
    std::vector<std::string> values{""};
    values.insert(values.end(), opt.values.begin(), opt.values.end());
    for (const auto& v : values) {
      auto settings = fixed;
      if (!v.empty()) settings[opt.family][opt.key] = v;
      std::string path = dir + "/candidate-" + std::to_string(++file_no) + ".toml";
      if (!util::write_file_atomic(path, profile_toml(allocator, settings))) {
        std::cerr << "edashim tune: cannot write " << path << "\n";
        util::remove_tree(dir);
        return 1;
      }
      spec.arms.push_back({v.empty() ? "(default)" : opt.key + "=" + v, path});
      step.candidates.push_back({v});
    }
    std::cerr << "edashim tune: step " << i + 1 << "/" << options.size() << ": " << step.option << " over "
              << opt.values.size() << " values (+ default), " << o.runs << " runs each, interleaved with baseline\n";
    std::string error;
    auto outcome = bench::run(spec, error);
    if (!outcome) {
      std::cerr << "edashim tune: " << error << "\n";
      util::remove_tree(dir);
      return 2;
    }
    auto arms = bench::analyse(spec, *outcome, 2000);
    for (const auto& w : outcome->warnings) std::cerr << "edashim tune: warning: " << w << "\n";
    for (const auto& a : arms)
      for (const auto& f : a.failures) std::cerr << "edashim tune: " << a.name << " failed, " << f << "\n";
    for (std::size_t c = 0; c < step.candidates.size(); ++c) {
      const auto& a = arms[c + 1];
      auto& cand = step.candidates[c];
      cand.median_s = a.wall_s.median;
      cand.wall_ratio = a.median_ratio;
      cand.rss_ratio = a.rss_ratio;
      cand.ok = a.ok;
    }
    step.chosen = choose(step.candidates, o.max_rss_ratio, step.within);
    if (!step.chosen) {
      std::cerr << "edashim tune: no run of " << step.option << " succeeded; stopping\n";
      rc = 1;
      steps.push_back(step);
      break;
    }
    if (!step.within)
      std::cerr << "edashim tune: no value of " << step.option << " stays within " << o.max_rss_ratio
                << "x baseline peak memory; keeping the one that uses the least\n";
    const auto& best = step.candidates[*step.chosen];
    if (!best.value.empty()) fixed[opt.family][opt.key] = best.value;
    for (std::size_t c = 0; c < step.candidates.size(); ++c) {
      const auto& cand = step.candidates[c];
      auto settings_label = step.option + "=" + (cand.value.empty() ? "(default)" : cand.value);
      points.push_back({settings_label, cand.rss_ratio, cand.wall_ratio, false, cand.rss_ratio <= o.max_rss_ratio});
    }
    // Only the last step's choice is the final one; earlier choices are marked in the table.
    if (outcome->interrupted) {
      rc = 130;
      steps.push_back(step);
      break;
    }
    steps.push_back(step);
  }
  util::remove_tree(dir);

  util::Table t;
  t.headers = {"step", "option", "value", "ok", "median s", "wall / baseline", "peak RSS / baseline", "in budget", "chosen"};
  t.right_aligned = {true, false, false, true, true, true, true, false, false};
  for (std::size_t i = 0; i < steps.size(); ++i)
    for (std::size_t c = 0; c < steps[i].candidates.size(); ++c) {
      const auto& cand = steps[i].candidates[c];
      t.rows.push_back({std::to_string(i + 1), steps[i].option, cand.value.empty() ? "(default)" : cand.value,
                        std::to_string(cand.ok), util::fixed(cand.median_s, 3), bench::ratio(cand.wall_ratio),
                        bench::ratio(cand.rss_ratio), cand.rss_ratio <= o.max_rss_ratio ? "yes" : "no",
                        steps[i].chosen == c ? "<-" : ""});
    }
  std::cout << "Trade-off (each step interleaved with baseline; budget: peak RSS <= " << o.max_rss_ratio
            << "x baseline):\n\n"
            << util::render_text(t) << "\n";

  // The final candidate's numbers come from the last step, where it was measured with every
  // earlier choice fixed.
  std::string snippet;
  if (!steps.empty() && steps.back().chosen) {
    const auto& last = steps.back();
    const auto& best = last.candidates[*last.chosen];
    char when[32];
    time_t now = time(nullptr);
    std::strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
    char figures[160];
    std::snprintf(figures, sizeof figures, "# median wall %.3fx baseline, peak RSS %.3fx (budget %.2fx), %d runs per setting\n",
                  best.wall_ratio, best.rss_ratio, o.max_rss_ratio, o.runs);
    snippet = "# Chosen by `edashim tune` on " + std::string(when) + " for: " + report::command_line(o.command) + "\n" +
              figures + (steps.back().within ? "" : "# WARNING: over the memory budget (no value met it)\n") +
              profile_toml(allocator, fixed);
    for (auto& p : points)
      if (p.label == last.option + "=" + (best.value.empty() ? "(default)" : best.value)) p.chosen = true;
  }
  if (!o.plot.empty()) {
    auto svg = bench::plot_tradeoff(points, o.max_rss_ratio, "edashim tune: " + report::command_line(o.command));
    if (util::write_file_atomic(o.plot, svg)) std::cerr << "edashim tune: plot written to " << o.plot << "\n";
    else {
      std::cerr << "edashim tune: cannot write " << o.plot << "\n";
      rc = rc ? rc : 1;
    }
  }
  if (snippet.empty()) return rc ? rc : 1;
  if (o.write.empty()) {
    std::cout << "Profile snippet:\n\n" << snippet;
  } else if (util::write_file_atomic(o.write, snippet)) {
    std::cout << "Profile written to " << o.write << " (use it: edashim run -p " << o.write << " -- ...)\n";
  } else {
    std::cerr << "edashim tune: cannot write " << o.write << "\n";
    return 1;
  }
  return rc;
}

}  // namespace

std::optional<TuneOption> parse_tune_option(const std::string& text, std::string& error) {
  auto eq = text.find('=');
  auto dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || dot + 1 == eq) {
    error = "expected FAMILY.OPTION=V1,V2,... such as mimalloc.eager_commit_delay=0,1,4";
    return std::nullopt;
  }
  TuneOption o;
  o.family = util::to_lower(text.substr(0, dot));
  o.key = util::to_lower(text.substr(dot + 1, eq - dot - 1));
  for (const auto& v : util::split(text.substr(eq + 1), ','))
    if (!v.empty()) o.values.push_back(v);
  static const std::vector<std::string> families{"mimalloc", "jemalloc", "tcmalloc", "tbbmalloc", "glibc"};
  if (std::find(families.begin(), families.end(), o.family) == families.end()) {
    error = "unknown allocator family '" + o.family + "' (mimalloc, jemalloc, tcmalloc, tbbmalloc, glibc)";
    return std::nullopt;
  }
  if (o.values.empty()) {
    error = "no values after '='";
    return std::nullopt;
  }
  return o;
}

std::string toml_value(const std::string& v) {
  if (v == "true" || v == "false") return v;
  long long i;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
  if (ec == std::errc() && p == v.data() + v.size()) return v;
  double d;
  auto [p2, ec2] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (ec2 == std::errc() && p2 == v.data() + v.size() && v.find_first_of("0123456789") != std::string::npos &&
      v.find_first_not_of("0123456789.eE+-") == std::string::npos && std::isfinite(d))
    return v.find_first_of(".eE") == std::string::npos ? v : (v[0] == '.' ? "0" + v : v);
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string profile_toml(const std::string& allocator, const std::map<std::string, std::map<std::string, std::string>>& options) {
  std::string s = "allocator = " + toml_value(allocator) + "\n";
  for (const auto& [family, kv] : options) {
    if (kv.empty()) continue;
    s += "\n[" + family + "]\n";
    for (const auto& [k, v] : kv) s += k + " = " + toml_value(v) + "\n";
  }
  return s;
}

std::optional<std::size_t> choose(const std::vector<Candidate>& cands, double max_rss_ratio, bool& within) {
  std::optional<std::size_t> best, leanest;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const auto& c = cands[i];
    if (c.ok == 0 || std::isnan(c.median_s)) continue;
    if (!leanest || c.rss_ratio < cands[*leanest].rss_ratio) leanest = i;
    if (c.rss_ratio <= max_rss_ratio && (!best || c.median_s < cands[*best].median_s)) best = i;
  }
  within = best.has_value();
  return best ? best : leanest;
}

Subcommand add_tune_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("tune", "Sweep allocator options on a command; keep the fastest within a peak-memory budget");
  cmd->add_option("--option", o->option_texts, "FAMILY.OPTION=V1,V2,...; several: swept one after another (coordinate search)")
      ->required();
  cmd->add_option("--allocator", o->allocator, "Allocator to tune (default: the first option's family)");
  cmd->add_option("--max-rss-ratio", o->max_rss_ratio, "Peak-memory budget relative to baseline")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("-n,--runs", o->runs, "Runs per setting (and of baseline) per step")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Unmeasured runs per setting first")->check(CLI::Range(0, 1000))->capture_default_str();
  cmd->add_option("-j,--jobs", o->jobs, "Runs at the same time")->check(CLI::Range(1, 1024))->capture_default_str();
  cmd->add_option("--fresh-copy", o->fresh_copy, "Copy these inputs into a new directory for every run");
  cmd->add_option("--on", o->on, "Where the fresh copies live")->check(CLI::IsMember({"disk", "tmpfs"}));
  cmd->add_option("--seed", o->seed, "Seed of the run order")->capture_default_str();
  cmd->add_option("--plot", o->plot, "Write an SVG of the trade-off (wall vs peak memory, both / baseline)");
  cmd->add_option("--write", o->write, "Write the chosen profile here instead of printing it");
  cmd->add_flag("--force", o->force, "Replace an existing --write file");
  cmd->add_flag("--no-progress", o->no_progress, "No progress bar even on a terminal");
  cmd->add_option("command", o->command, "TOOL [ARGS...] (after --)")->required();
  cmd->footer(
      "Each step is one interleaved bench of baseline, the option left at its default, and each listed value, with the\n"
      "choices of earlier steps fixed (coordinate search). The choice: least median wall time among the settings whose\n"
      "median peak RSS is within --max-rss-ratio of baseline's. Sweep on a small design, then confirm with edashim bench.\n"
      "Examples:\n"
      "  edashim tune --option mimalloc.eager_commit_delay=0,1,4 -n 10 -- yosys -q -s small.ys\n"
      "  edashim tune --option mimalloc.arena_eager_commit=0,1 --option mimalloc.purge_delay=0,10,100 \\\n"
      "      --max-rss-ratio 1.05 -n 10 --plot tune.svg --write ~/.config/edashim/profiles/yosys-tuned.toml -- yosys ...");
  return {cmd, [o] { return run_tune(*o); }};
}

}  // namespace commands
