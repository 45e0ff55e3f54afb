#include "commands/bench.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <set>

#include "bench/analysis.hpp"
#include "bench/command_tool.hpp"
#include "bench/outputs_record.hpp"
#include "bench/present.hpp"
#include "bench/runner.hpp"
#include "bench/verdict.hpp"
#include "commands/bench_farm.hpp"
#include "commands/measure.hpp"
#include "farm/executors.hpp"
#include "farm/round_task.hpp"
#include "commands/report.hpp"
#include "config/config_file.hpp"
#include "config/load.hpp"
#include "config/trust.hpp"
#include "learn/config_edit.hpp"
#include "learn/learned.hpp"
#include "paths/files.hpp"
#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "util/result.hpp"
#include "runlog/append.hpp"
#include "util/machine.hpp"
#include "util/strings.hpp"
#include "util/voice.hpp"

namespace commands {
namespace {

// Everything bench says on stderr.
const util::Voice voice("edashim bench");

// --compare-outputs: which allocators left the reference's outputs, in the user's run log, where
// `adopt_requires_bench` looks for it (report --recommend, learn/recommend.hpp).
void record_outputs(const bench::BenchResult& outcome, const std::vector<bench::ArmStats>& arms) {
  auto by = bench::outputs_by_allocator(outcome, arms);
  std::string log = current_log_path("bench");
  if (log.empty() || (by.identical.empty() && by.differing.empty())) return;
  const runlog::RunRecord* last = nullptr;
  for (const auto& r : outcome.runs)
    if (r.ok) last = &r.record;
  if (!last) return;
  std::string line = bench::outputs_record_line(last->tool, last->path, util::cpu_model(nullptr).value_or(""), last->start_unix + last->wall_s, by);
  if (auto written = runlog::append_line(log, line, {}, user_shared_dirs()); !written)
    voice("cannot record the outputs' verdict in ", log, ": ", written.error());
}


struct Options {
  bench::Spec spec;
  std::vector<std::string> profiles;
  std::vector<std::string> compare_lists;  // --compare-outputs values as given: "", "a.v" or "a.v,b.v"
  bench::Exports exports;
  FarmOptions farm;
  // bench collect DIR [--resubmit] [--wait]; bench round DIR ROUND (what a farm task runs)
  std::string collect_dir, round_dir, fingerprint;
  int round = -1;
  bool resubmit = false;
  bool no_log = false;  // --no-log: keep no run in any log
  bool adopt = false;   // --adopt: write a clear winner into the user's config
  bool project = false;  // --project (with --adopt): into the nearest .edashim.toml instead
  // Records go to the user's own run log only from the user's own runs: a local bench, or an
  // experiment whose directory and experiment.json are the user's (anyone can forge the rest).
  bool own = true;
};

// Where --adopt writes: the user's config, or with --project the nearest .edashim.toml (one in
// the current directory when there is none). `trust_after`: whether the written file may then be
// trusted as the user's own act: a file it creates, or one whose content the user had trusted
// already. An untrusted file is someone else's words until its owner reads them: adding a line
// to it must not trust the rest (trust pins the whole content).
struct AdoptTarget {
  std::string file;
  bool trust_after = false;
};
AdoptTarget adopt_target(bool project) {
  if (!project) return {paths::Files::discover().user_file, false};
  char cwd[4096];
  std::string here = ::getcwd(cwd, sizeof cwd) ? cwd : ".";
  auto files = config::project_files(here);
  if (files.empty()) return {here + "/.edashim.toml", true};
  std::string key = config::trust_key(files.back());
  auto read = config::read_config_file(key);
  config::TrustStore trusted(paths::Files::discover().trust_file);
  return {files.back(), read.ok() && trusted.is_trusted(key, read.content)};
}

// --adopt --project: the file as now written is trusted (as `edashim trust` records it), when
// adopt_target allowed it; otherwise says how to review and trust it.
int trust_adopted(const AdoptTarget& t) {
  std::string key = config::trust_key(t.file);
  if (!t.trust_after) {
    voice.say("--adopt: " + t.file + " was not trusted before this edit, so it is not trusted now: read it, then: edashim trust " +
        util::shell_quote(key));
    return 0;
  }
  auto read = config::read_config_file(key);
  config::TrustStore trusted(paths::Files::discover().trust_file);
  std::string error;
  if (read.ok()) {
    auto done = trusted.trust(key, read.content);
    if (!done) error = done.error();
    else if (!done->set_aside.empty()) util::Voice("edashim").say(config::TrustStore::set_aside_note(done->set_aside));
  }
  if (!read.ok() || !error.empty()) {
    voice.say("--adopt: written, but not trusted: " + (read.ok() ? error : read.why + read.refused) + "; run: edashim trust " +
        util::shell_quote(key));
    return 1;
  }
  voice.say("--adopt: trusted " + key + " as it is now (your own edit; any other edit revokes it)");
  return 0;
}

// --adopt: the winner's settings into the user's config (or the project's file, --project)
// through the checked merge report --recommend --write uses (learn::merge_settings: the keys
// inserted into the file's text, nothing else changed, refused where the file sets them
// otherwise), written only when the file is still as merged against. bench::decide offers
// settings only for a clear win with identical outputs; anything else writes nothing and says
// why (status 0: keeping is a result).
int adopt(const bench::Spec& spec, const bench::BenchResult& outcome, const std::vector<bench::ArmStats>& arms,
          bool project) {
  std::string tool = bench::tool_name(spec.command);
  auto paired = bench::analyse_paired(spec, outcome);
  auto v = bench::decide(spec, arms, tool, &paired);
  if (v.adopt_toml.empty()) {
    voice.say("--adopt: nothing written: " + util::split(v.advice, '\n').front());
    return 0;
  }
  // Only what beat the tool's current choice replaces it: a win over another arm says nothing
  // of what runs now.
  std::string current = current_arm(bench::from_tool(spec.command));
  if (current.empty() || arms[0].arm_id != current) {
    voice.say("--adopt: nothing written: " + arms[*v.winner].name + " beat " + arms[0].name + ", which is not what " + tool +
        " runs with now (" + (current.empty() ? "unknown: edashim explain " + tool : current) +
        "); --adopt judges against the current choice, given first: -p current -p " + spec.arms[*v.winner].profile);
    return 0;
  }
  auto settings = learn::adopt_settings(tool, arms[*v.winner].arm_id);
  AdoptTarget where = adopt_target(project);
  const std::string& file = where.file;
  std::string target = util::real_path(file).value_or(file);
  if (std::string dir = util::dirname(target); !util::exists(target) && !util::is_directory(dir))
    if (auto refused = util::make_owned_dir(dir, user_shared_dirs(), 0700); !refused) {
      voice.say("--adopt: " + refused.error() + "; nothing written");
      return 1;
    }
  auto read = [&] { return util::exists(target) ? util::read_file(target, 1 << 20) : std::optional<std::string>(); };
  auto existing = read();
  if (util::exists(target) && !existing) {
    voice.say("--adopt: cannot read " + file + " (or it is larger than 1 MiB); nothing written");
    return 1;
  }
  auto edit = learn::merge_settings(existing, file, settings, "added by edashim bench --adopt: " + arms[*v.winner].name +
                                                                   " beat " + arms[0].name + " on " + tool);
  if (!edit.refused.empty()) {
    voice.say("--adopt: not written: " + edit.refused);
    return 1;
  }
  if (edit.unchanged) {
    voice.say("--adopt: " + file + " already says this; unchanged");
    return 0;
  }
  struct stat st;
  mode_t mode = ::stat(target.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  if (read() != existing || !util::write_file_atomic(target, edit.text, mode)) {
    voice.say("--adopt: " + file + " changed meanwhile or cannot be written; nothing written: run it again");
    return 1;
  }
  std::string lines;
  for (const auto& line : util::split(learn::render_settings(settings), '\n'))
    if (!line.empty()) lines += "  " + line + "\n";
  voice.say_with("--adopt: added to " + file + " (the next run of " + tool + " uses " + arms[*v.winner].name + "):", lines);
  return project ? trust_adopted(where) : 0;
}

// The figures, exports and exit status of a finished outcome: one path for local and farm runs.
// Status 1 when an arm has no successful run, or a compared output file no run left: neither
// outcome can decide anything, whatever the other arms did.
int finish(Options& o, const bench::BenchResult& outcome) {
  if (o.adopt) o.spec.adopt_into = adopt_target(o.project).file;
  const auto& spec = o.spec;
  auto arms = bench::analyse(spec, outcome);
  bool written = bench::present(spec, outcome, arms, o.exports, std::cout, std::cerr, voice);
  if (spec.compare && !outcome.interrupted && o.own) record_outputs(outcome, arms);
  if (outcome.interrupted) return 130;
  bool decided = true;
  for (const auto& name : bench::arms_without_success(arms)) {
    voice.say("error: no run of " + name + " succeeded (see the failures above): the comparison means nothing");
    decided = false;
  }
  for (const auto& file : bench::missing_everywhere(spec, arms)) {
    voice.say("error: --compare-outputs " + file + ": no run of any arm left this file (in the directory the command ran "
        "in); name a file the command writes");
    decided = false;
  }
  std::size_t ok = 0;
  for (const auto& a : arms) ok += a.ok;
  if (ok == 0 || !decided) return 1;
  if (!written) return 1;
  return o.adopt ? adopt(spec, outcome, arms, o.project) : 0;
}

// A local bench's runs are evidence: they go to the user's run log, marked as bench
// runs (bench::mark_bench_line), where report --recommend counts them; --log FILE sends them
// elsewhere, --no-log nowhere. Warm-up runs are never kept.
void keep_runs(Options& o) {
  auto& spec = o.spec;
  spec.experiment = "local-" + std::to_string(::time(nullptr)) + "-" + std::to_string(::getpid());
  spec.keep_log_shared = user_shared_dirs();
  if (o.no_log) spec.keep_log.clear();
  else if (spec.keep_log.empty()) spec.keep_log = current_log_path("bench");
}

// The arms: each -p as given (a relative profile file made absolute now, so a --fresh-copy run
// in another directory finds the same file); without -p, baseline against the tool's current
// choice.
util::Status default_arms(Options& o) {
  auto& spec = o.spec;
  std::string cwd;
  if (char buf[4096]; ::getcwd(buf, sizeof buf)) cwd = buf;
  std::string current = spec.command.empty() ? "" : current_arm(bench::from_tool(spec.command));
  for (const auto& p : o.profiles) {
    // `current`: what the tool runs with now (no -p for its runs), the arm --adopt judges against.
    if (p == "current") {
      spec.arms.push_back({(current.empty() ? "current" : current + " (current)"), ""});
      continue;
    }
    std::string path = p;
    if (p.find('/') != std::string::npos && p[0] != '/' && !cwd.empty()) path = cwd + "/" + p;
    spec.arms.push_back({bench::arm_name(p), path});
  }
  if (!o.profiles.empty() || spec.command.empty()) return util::Ok{};
  std::string tool = bench::tool_name(spec.command);
  if (current.empty()) {
    // The tool or its configuration has a problem: the arms' previews in check() say which
    // (a tool not found, a quoted command), where "no arm" would mislead.
    spec.arms.push_back({"baseline", "baseline"});
    spec.arms.push_back({"current", ""});
    return util::Ok{};
  }
  if (current == "system")
    return util::fail(tool + " runs with the system allocator now: nothing to compare it with by default; name the arms, "
                      "e.g. -p baseline -p jemalloc");
  spec.arms.push_back({"baseline", "baseline"});
  spec.arms.push_back({current + " (current)", ""});
  voice("comparing ", tool, "'s current choice (", current, ") with baseline; -p PROFILE names other arms");
  return util::Ok{};
}

// bench collect: the finished rounds' runs into the user's run log, marked as a local bench's
// are (bench::mark_bench_line), so that report --recommend counts them; each run once: one whose
// run_id the log already holds under this experiment is not added again. Only the user's own
// experiment (anyone who can write DIR could forge the rest).
void log_collected(const Options& o, const farm::Experiment& e, const bench::BenchResult& outcome) {
  if (!e.own || o.no_log) return;
  std::string log = current_log_path("bench");
  if (log.empty()) return;
  std::string experiment = "farm-" + e.fingerprint.substr(0, 16);
  auto shared = user_shared_dirs();
  std::set<std::string> there;
  if (util::exists(log))
    scan_logs({log}, shared, [&](const runlog::RunRecord& r) {
      if (r.bench_experiment == experiment && !r.run_id.empty()) there.insert(r.run_id);
    });
  std::size_t added = 0;
  for (const auto& r : outcome.runs) {
    if (r.log_line.empty() || r.record.run_id.empty() || !there.insert(r.record.run_id).second) continue;
    std::string line = bench::mark_bench_line(r.log_line, experiment, e.spec.arms[std::size_t(r.arm)], r.round);
    if (auto written = runlog::append_line(log, line, {}, shared); !written) {
      voice.say("cannot add the collected runs to " + log + ": " + written.error());
      return;
    }
    ++added;
  }
  if (added) voice.say(std::to_string(added) + " collected run(s) added to " + log + " (evidence for report --recommend)");
}

// `bench collect DIR`: whatever has finished, analysed as a local bench's runs are; with
// --resubmit the unfinished rounds go to the scheduler again first. Exit status: 0 when every
// round is done, 3 when some are not (figures from the done ones still printed, if any), 1 as a
// local bench's: no run of the tool succeeded, or an export could not be written.
int run_collect(Options& o) {
  std::string dir = o.collect_dir;
  auto shared = user_shared_dirs();
  auto e = farm::load(dir, version(), shared);
  if (!e) return voice.fail(e.error(), 2);
  o.own = e->own;
  int dropped = 0;
  farm::read_submissions(dir, shared, &dropped);
  if (dropped)
    voice.say(std::to_string(dropped) + " line(s) of " + farm::printable(dir) +
        "/submissions.jsonl name no valid job (not an id Slurm or GNU parallel gives): left out, never asked about or cancelled");
  if (auto bad = bench::check_exports(o.exports); !bad.empty()) {
    voice.say(bad);
    return 2;
  }
  bool interrupted = false;
  auto c = collect_farm(dir, *e, false, interrupted, voice);
  if (o.resubmit) {
    auto done = resubmit(dir, *e, c);
    if (!done) return voice.fail(done.error());
    voice.say(*done);
    c = collect_farm(dir, *e, o.farm.wait, interrupted, voice);
  } else if (o.farm.wait) {
    c = collect_farm(dir, *e, true, interrupted, voice);
  }
  o.spec = e->spec;
  if (interrupted)
    voice("stopped waiting; the tasks keep running (collect later: edashim bench collect ", dir,
          "; cancel them: ", farm::cancel_hint(farm::read_submissions(dir, shared)), ")");
  say_rounds(dir, c, e->spec.runs, voice);
  if (c.outcome.runs.empty()) return voice.fail("no round of " + dir + " is done yet: nothing to analyse", 3);
  log_collected(o, *e, c.outcome);
  int rc = finish(o, c.outcome);
  return rc != 0 ? rc : c.count["done"] == e->spec.runs ? 0 : 3;
}

int run_bench(Options& o) {
  if (!o.round_dir.empty()) return farm::run_round(o.round_dir, o.round, o.fingerprint, user_shared_dirs(), preview_arm, util::Voice("edashim bench round"));
  if (!o.collect_dir.empty()) return run_collect(o);
  auto& spec = o.spec;
  if (auto arms = default_arms(o); !arms) return voice.fail(arms.error(), 2);
  spec.compare = !o.compare_lists.empty();
  for (const auto& list : o.compare_lists)
    for (const auto& name : util::split(list, ','))
      if (!name.empty()) spec.compare_outputs.push_back(name);
  if (!spec.keep_log.empty() && spec.keep_log[0] != '/') {
    char buf[4096];
    if (::getcwd(buf, sizeof buf)) spec.keep_log = std::string(buf) + "/" + spec.keep_log;
  }
  // Everything is checked before the first run: a usage error runs nothing and writes nothing.
  std::string error = bench::check_exports(o.exports);
  // --adopt writes only a win with identical outputs over the current choice: what cannot give
  // one is said before the first run, not after all of them.
  if (error.empty() && o.adopt && spec.arms.size() < 2)
    error = "--adopt: one arm only, nothing to judge it against: put the current choice first, -p current -p PROFILE";
  if (error.empty() && o.adopt && !spec.compare)
    error = "--adopt writes only a winner whose outputs are those of the current choice: add --compare-outputs "
            "(the files the command writes; bare: stdout)";
  if (error.empty()) error = check_farm_options(o.farm, spec, "bench");
  if (error.empty() && o.farm.executor != "local" && !(spec.setup + spec.prepare + spec.cleanup).empty())
    error = "--setup, --prepare and --cleanup are for a local bench: a farm's tasks do not run them";
  if (!error.empty()) return voice.fail(error, 2);
  if (spec.arms.size() == 1)
    voice("one profile only: nothing to compare it with; add ", spec.arms[0].profile == "baseline" ? "-p PROFILE" : "-p baseline");
  if (o.farm.executor == "local") {
    keep_runs(o);
    auto outcome = bench::run(spec, preview_arm);
    if (!outcome) return voice.fail(outcome.error(), 2);
    if (!outcome->keep_refused.empty()) voice.say(outcome->keep_refused);
    if (!outcome->stopped_at.empty()) {
      voice.say("a run failed (" + outcome->stopped_at + "); stopped there, as hyperfine does: -i/--ignore-failure runs every "
          "round and leaves failed runs out of the figures, --show-output shows each run's output");
      return 1;
    }
    return finish(o, *outcome);
  }
  // A farm: everything a task will check is checked here first, then the rounds go out.
  if (auto checked = bench::check(spec, preview_arm); !checked) return voice.fail(checked.error(), 2);
  auto e = start_farm(spec, o.farm);
  if (!e) return voice.fail(e.error());
  std::string dir = farm_dir(o.farm);
  auto subs = farm::read_submissions(dir, user_shared_dirs());
  voice(spec.runs, " rounds submitted to ", e->executor == "slurm" ? "Slurm" : "GNU parallel",
        subs.empty() ? "" : (e->executor == "slurm" ? " as job " : ", pid ") + subs.back().job, "; results in ", dir);
  if (!o.farm.wait) {
    voice("see progress and figures: edashim bench collect ", dir, " (--wait waits for the rest)");
    return 0;
  }
  o.collect_dir = dir;
  return run_collect(o);
}

// The exports, on bench and on bench collect alike: a farm's result is exported as a local one.
void add_export_options(CLI::App* cmd, bench::Exports& x) {
  cmd->add_option("--export-json", x.json, "Write every run's raw figures and the statistics as JSON to FILE (- = stdout); repeatable");
  cmd->add_option("--export-markdown", x.markdown, "Write the table as Markdown to FILE (- = stdout); repeatable");
  cmd->add_option("--export-csv", x.csv, "Write the table as CSV, one column per figure, to FILE (- = stdout); repeatable");
  cmd->add_flag_function("--json", [&x](std::int64_t) { x.json.push_back("-"); }, "Same as --export-json -");
  cmd->add_flag_function("--markdown", [&x](std::int64_t) { x.markdown.push_back("-"); }, "Same as --export-markdown -");
  cmd->add_flag_function("--csv", [&x](std::int64_t) { x.csv.push_back("-"); }, "Same as --export-csv -");
  cmd->add_flag("--wide", x.wide, "Show every column on the terminal (the Markdown export always has them)");
  cmd->add_option("--plot", x.plot, "Write an SVG of the run-time and peak-memory distributions");
}

}  // namespace

Subcommand add_bench_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto& s = o->spec;
  auto& x = o->exports;
  auto* cmd = app.add_subcommand("bench", "Compare profiles on one command: interleaved runs, statistics, exports, a plot");
  // One value per use, so that `-p mimalloc "yosys -q"` never takes the command for a profile.
  cmd->add_option("-p,--profile", o->profiles,
                  "Profile or profile file; repeat for each arm; the first is the reference; `current`: what the tool "
                  "runs with now")
      ->allow_extra_args(false);
  add_spec_options(cmd, s);
  // hyperfine's options whose meaning carries over (the first failed run stops bench, as it does).
  s.stop_at_failure = true;
  cmd->add_flag_function("-i,--ignore-failure", [&s](std::int64_t) { s.stop_at_failure = false; },
                         "Run every round even when runs fail; failed runs are left out of the figures and listed");
  cmd->add_flag("--show-output", s.show_output, "Show each run's stdout and stderr once it ended (they are kept off the terminal otherwise)");
  cmd->add_flag_function("-N", [](std::int64_t) {}, "hyperfine's --shell=none: bench never starts the command through a shell, so this changes nothing");
  cmd->add_option_function<int>("-m,--min-runs", [&s](const int& n) { s.runs = n; }, "hyperfine's: bench runs a fixed number of rounds, so the same as -r N")
      ->check(CLI::Range(1, 100000))
      ->excludes(cmd->get_option("--runs"));
  // One value per use (a comma list allowed), so that it never takes the command's first word.
  cmd->add_option("--compare-outputs", o->compare_lists,
                  "Hash stdout and this output file after every run, and give a verdict per file and arm; repeat it or "
                  "separate names with commas; bare: stdout only")
      ->expected(0, 1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag_function("--no-compare-stdout", [&s](std::int64_t) { s.compare_stdout = false; },
                         "With --compare-outputs: leave stdout out (tools that print their own timings)");
  cmd->add_option("--stdout-filter", s.stdout_filter,
                  "With --compare-outputs: remove the lines of stdout that match this regular expression before hashing");
  add_export_options(cmd, x);
  cmd->add_option("--log", s.keep_log,
                  "Append the measured runs' log lines to this file instead of your run log (where report --recommend "
                  "counts them)");
  cmd->add_flag("--adopt", o->adopt,
                "Write a clear winner with identical outputs (--compare-outputs) into your config "
                "(~/.config/edashim/config.toml), as report --recommend --write does");
  cmd->add_flag("--project", o->project,
                "With --adopt: write into the nearest .edashim.toml (created here if there is none) instead, and trust "
                "it as written if you had trusted it before (or it is new)")
      ->needs(cmd->get_option("--adopt"));
  cmd->add_flag("--no-log", o->no_log, "Keep the runs in no log (they are evidence for report --recommend otherwise)");
  add_farm_options(cmd, o->farm);
  cmd->add_option("command", s.command, "TOOL [ARGS...] (after --)");
  auto* collect = cmd->add_subcommand("collect", "Analyse a farm experiment's finished rounds (--resubmit: run the unfinished again)");
  collect->add_option("dir", o->collect_dir, "The experiment directory (bench --dir)")->required();
  collect->add_flag("--resubmit", o->resubmit, "Submit the partial, failed and missing rounds again first");
  collect->add_flag("--wait", o->farm.wait, "Wait until no round is pending or running");
  add_export_options(collect, x);
  auto* round = cmd->add_subcommand("round", "Run one round of a farm experiment here (what each Slurm or parallel task runs)");
  round->add_option("dir", o->round_dir, "The experiment directory")->required();
  round->add_option("round", o->round, "The round, 0-based (Slurm: $SLURM_ARRAY_TASK_ID)")->required();
  round->add_option("--fingerprint", o->fingerprint, "The experiment's fingerprint at submission: anything else is refused");
  round->group("");  // not for users: the scheduler runs it
  cmd->footer(
      "Each run is `edashim run --strict -p ARM -- COMMAND`, timed by the inner edashim (wait4) and read back from its\n"
      "log line. Rounds run every arm once in shuffled order; every arm's environment is padded (EDASHIM_PAD) to the\n"
      "same size; a run that fails is listed and left out. Output and stderr of the tool go to files, not the terminal.\n"
      "Everything is checked before the first run (profiles, allocator options, inputs, export paths): a problem\n"
      "stops bench with status 2 having run nothing. `--` ends bench's options: everything after it is the command.\n"
      "The table is always printed (on stderr when an export goes to stdout); each export file is written whole or\n"
      "not at all.\n"
      "Examples:\n"
      "  edashim bench -p baseline -p jemalloc -p mimalloc -n 30 -- yosys -q -p 'synth -top top' top.v\n"
      "  edashim bench -p baseline -p tcmalloc -n 20 --jobs 2 --fresh-copy design.blif --on tmpfs \\\n"
      "      --compare-outputs design.route,design.place --no-compare-stdout \\\n"
      "      -- vpr arch.xml design.blif --route_chan_width 128\n"
      "  edashim bench -p baseline -p mimalloc -n 10 --export-markdown bench.md --export-json bench.json \\\n"
      "      --plot bench.svg --compare-outputs net.v -- yosys -q -p 'read_verilog top.v; synth -top top; write_verilog net.v'\n"
      "On a farm (a round per task, every arm once on one node; DIR on storage every node shares):\n"
      "  edashim bench -p baseline -p jemalloc -n 20 --executor slurm --dir /shared/b1 \\\n"
      "      --slurm-args '--partition=eda --exclusive' --wait -- yosys -q -s flow.ys\n"
      "  edashim bench collect /shared/b1 [--resubmit] [--wait]");
  return {cmd, [o] { return run_bench(*o); }, &s.command};
}

}  // namespace commands
