#include "commands/bench.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "bench/svg.hpp"
#include "report/aggregate.hpp"
#include "util/fs.hpp"

namespace commands {
namespace {

struct Options {
  bench::Spec spec;
  std::vector<std::string> profiles;
  std::string plot;
  bool json = false, csv = false, markdown = false, no_progress = false, compare_given = false;
};

int run_bench(Options& o) {
  auto& spec = o.spec;
  for (const auto& p : o.profiles) spec.arms.push_back({arm_name(p), p});
  if (spec.arms.size() < 2) std::cerr << "edashim bench: one profile only: nothing to compare it with; add -p baseline\n";
  spec.compare = o.compare_given;
  // CLI11 stores an empty value for a bare --compare-outputs (stdout only); it names no file.
  std::erase(spec.compare_outputs, std::string());
  spec.progress = !o.no_progress;
  if (!spec.keep_log.empty() && spec.keep_log[0] != '/') {
    char buf[4096];
    if (::getcwd(buf, sizeof buf)) spec.keep_log = std::string(buf) + "/" + spec.keep_log;
  }
  std::string error;
  auto outcome = bench::run(spec, error);
  if (!outcome) {
    std::cerr << "edashim bench: " << error << "\n";
    return 2;
  }
  auto arms = bench::analyse(spec, *outcome);
  std::string format = o.json ? "json" : o.csv ? "csv" : o.markdown ? "markdown" : "text";
  bool plot_ok = print_bench(spec, *outcome, arms, format, o.plot);
  if (outcome->interrupted) return 130;
  std::size_t ok = 0;
  for (const auto& a : arms) ok += a.ok;
  if (ok == 0) return 1;
  return plot_ok ? 0 : 1;
}

}  // namespace

std::string arm_name(const std::string& profile) {
  if (profile.find('/') == std::string::npos) return profile;
  std::string b = util::basename(profile);
  if (b.size() > 5 && b.substr(b.size() - 5) == ".toml") b.resize(b.size() - 5);
  return b;
}

bool print_bench(const bench::Spec& spec, const bench::Outcome& outcome, const std::vector<bench::ArmStats>& arms,
                 const std::string& format, const std::string& plot_path) {
  for (const auto& w : outcome.warnings) std::cerr << "edashim bench: warning: " << w << "\n";
  for (const auto& a : arms) {
    // A broken command fails every run the same way: three lines say it, thirty bury the table.
    for (std::size_t i = 0; i < a.failures.size() && i < 3; ++i)
      std::cerr << "edashim bench: " << a.name << " failed, " << a.failures[i] << "\n";
    if (a.failures.size() > 3)
      std::cerr << "edashim bench: " << a.name << ": " << a.failures.size() - 3 << " more failed runs (all in --json)\n";
  }
  if (outcome.interrupted) std::cerr << "edashim bench: interrupted; figures below cover the runs that finished\n";
  std::string cmd = report::command_line(spec.command);
  if (format == "json") {
    std::cout << bench::bench_json(spec, outcome, arms) << "\n";
  } else if (format == "csv") {
    std::cout << util::render_csv(bench::bench_table(arms, spec.compare, false));
  } else {
    bool md = format == "markdown";
    auto table = bench::bench_table(arms, spec.compare, true);
    std::string head = "`" + cmd + "`: " + std::to_string(spec.runs) + " runs per arm, " + std::to_string(spec.warmup) +
                       " warm-up, " + std::to_string(spec.jobs) + " at a time" +
                       (spec.fresh_copy.empty() ? "" : ", fresh copy on " + spec.on) + "; " + outcome.machine;
    std::string legend =
        "Ratios are to the first arm (" + (arms.empty() ? std::string() : arms[0].name) +
        "). p (faster): one-sided Mann-Whitney U, H1: the arm's times are smaller. CI: bootstrap 95% of the median "
        "ratio. Failed runs are excluded.";
    if (md) std::cout << head << "\n\n" << util::render_markdown(table) << "\n" << legend << "\n";
    else std::cout << head << "\n\n" << util::render_text(table) << "\n" << legend << "\n";
  }
  if (plot_path.empty()) return true;
  std::string subtitle = std::to_string(spec.runs) + " runs per arm, interleaved, " + std::to_string(spec.jobs) +
                         " at a time; " + outcome.machine;
  std::string svg = bench::plot_bench(arms, cmd.size() > 110 ? cmd.substr(0, 107) + "..." : cmd, subtitle);
  if (!util::write_file_atomic(plot_path, svg)) {
    std::cerr << "edashim bench: cannot write the plot to " << plot_path << "\n";
    return false;
  }
  std::cerr << "edashim bench: plot written to " << plot_path << "\n";
  return true;
}

Subcommand add_bench_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto& s = o->spec;
  auto* cmd = app.add_subcommand("bench", "Compare profiles on one command: interleaved runs, statistics, a plot");
  cmd->add_option("-p,--profile", o->profiles, "Profile or profile file; repeat for each arm; the first is the reference")
      ->required();
  cmd->add_option("-n,--runs", s.runs, "Measured runs per arm")->check(CLI::Range(1, 100000))->capture_default_str();
  cmd->add_option("--warmup", s.warmup, "Unmeasured runs per arm first")->check(CLI::Range(0, 1000))->capture_default_str();
  cmd->add_option("-j,--jobs", s.jobs, "Runs at the same time (concurrency is part of the experiment)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--fresh-copy", s.fresh_copy, "Copy these inputs into a new directory for every run and run there");
  cmd->add_option("--on", s.on, "Where the fresh copies live")->check(CLI::IsMember({"disk", "tmpfs"}))->capture_default_str();
  auto* compare = cmd->add_option("--compare-outputs", s.compare_outputs,
                  "Hash stdout and these output files (none: stdout only) after every run; report whether each arm "
                  "matches the first")->expected(0, -1);
  cmd->add_option("--plot", o->plot, "Write an SVG of the run-time and peak-memory distributions");
  cmd->add_option("--seed", s.seed, "Seed of the run order and the bootstrap")->capture_default_str();
  cmd->add_option("--log", s.keep_log, "Also append the measured runs' log lines to this file (for edashim report)");
  cmd->add_flag("--no-progress", o->no_progress, "No progress bar even on a terminal");
  auto* j = cmd->add_flag("--json", o->json, "JSON with every run's raw figures");
  auto* c = cmd->add_flag("--csv", o->csv, "CSV, one column per figure");
  auto* m = cmd->add_flag("--markdown", o->markdown, "Markdown table");
  j->excludes(c)->excludes(m);
  c->excludes(m);
  cmd->callback([o, compare] { o->compare_given = compare->count() > 0; });
  cmd->add_option("command", s.command, "TOOL [ARGS...] (after --)")->required();
  cmd->footer(
      "Each run is `edashim run --strict -p ARM -- COMMAND`, timed by the inner edashim (wait4) and read back from its\n"
      "log line. Rounds run every arm once in shuffled order; every arm's environment is padded (EDASHIM_PAD) to the\n"
      "same size; a run that fails is listed and left out. Output and stderr of the tool go to files, not the terminal.\n"
      "Examples:\n"
      "  edashim bench -p baseline -p jemalloc -p mimalloc -n 30 -- yosys -q -p 'synth -top top' top.v\n"
      "  edashim bench -p baseline -p tcmalloc -n 20 --jobs 2 --fresh-copy design.blif --on tmpfs \\\n"
      "      -- vpr arch.xml design.blif --route_chan_width 128\n"
      "  edashim bench -p baseline -p mimalloc -n 10 --compare-outputs net.v --plot bench.svg --markdown \\\n"
      "      -- yosys -q -p 'read_verilog top.v; synth -top top; write_verilog net.v'");
  return {cmd, [o] { return run_bench(*o); }};
}

}  // namespace commands
