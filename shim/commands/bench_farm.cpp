#include "commands/bench_farm.hpp"

#include "commands/own_settings.hpp"
#include "commands/report.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "bench/runner.hpp"
#include "commands/measure.hpp"
#include "config/load.hpp"
#include "config/trust.hpp"
#include "farm/executors.hpp"
#include "farm/scheduler.hpp"
#include "paths/files.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

#ifndef EDASHIM_VERSION
#define EDASHIM_VERSION "unknown"
#endif

namespace commands {
namespace {

std::atomic<bool> g_stop{false};
void on_interrupt(int) { g_stop = true; }

std::string absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char buf[4096];
  return ::getcwd(buf, sizeof buf) ? std::string(buf) + "/" + path : path;
}

// The words of an executor's arguments; none when they cannot be split, the reason added to
// `problems` (one line each: check_farm_options says them all at once).
std::vector<std::string> words_of(const std::string& option, const std::string& text, std::string& problems) {
  auto w = farm::shell_words(text);
  if (!w) {
    problems += option + ": " + w.error() + "\n";
    return {};
  }
  return std::move(*w);
}

}  // namespace

std::string version() { return EDASHIM_VERSION; }

std::string farm_dir(const FarmOptions& f) { return absolute(f.dir); }


void add_farm_options(CLI::App* cmd, FarmOptions& f) {
  cmd->add_option("--executor", f.executor,
                  "Where rounds run: local (here, one after another), slurm (one Slurm array task per round), parallel "
                  "(one GNU parallel job per round, --sshlogin hosts)")
      ->check(CLI::IsMember({"local", "slurm", "parallel"}))
      ->capture_default_str();
  cmd->add_option("--dir", f.dir,
                  "With slurm/parallel: a new (or empty, your own) directory on shared storage for the experiment and its "
                  "results; made 0700 (0750 inside a shared_dirs directory)");
  cmd->add_option("--slurm-args", f.slurm_args, "Options for sbatch, as one string: '--partition=eda --exclusive --time=1:00:00'");
  cmd->add_option("--parallel-args", f.parallel_args,
                  "Options for GNU parallel, as one string (default --sshlogin : = this machine): '--sshlogin n1,n2'");
  cmd->add_flag("--wait", f.wait, "With slurm/parallel: wait for every round and print the result (else: bench collect DIR)");
}

std::string check_farm_options(const FarmOptions& f, const bench::Spec& spec, const std::string& who) {
  std::string e;
  if (f.executor == "local") {
    if (!f.dir.empty()) e += "--dir goes with --executor slurm or --executor parallel (a local " + who + " keeps nothing)\n";
    if (!f.slurm_args.empty()) e += "--slurm-args goes with --executor slurm\n";
    if (!f.parallel_args.empty()) e += "--parallel-args goes with --executor parallel\n";
    if (f.wait && who == "bench") e += "--wait goes with --executor slurm or --executor parallel (a local bench always waits)\n";
  } else {
    if (f.dir.empty())
      e += "--executor " + f.executor + " needs --dir DIR: a new directory on storage every node shares, where the rounds' "
           "results are collected\n";
    else if (who == "tune" && util::exists(absolute(f.dir) + "/step-1"))
      e += "--dir " + farm::printable(f.dir) + " already holds a tune's steps (step-1, ...): each is an experiment bench "
           "collect reads; choose a new directory\n";
    else if (auto bad = farm::check_new_dir(absolute(f.dir), user_shared_dirs()); !bad)
      e += bad.error() + "\n";
    if (f.executor == "slurm" && !f.parallel_args.empty()) e += "--parallel-args goes with --executor parallel\n";
    if (f.executor == "parallel" && !f.slurm_args.empty()) e += "--slurm-args goes with --executor slurm\n";
    // The same check as every resubmission makes of the words experiment.json keeps.
    std::string words_error;
    bool slurm = f.executor == "slurm";
    auto words = words_of(slurm ? "--slurm-args" : "--parallel-args", slurm ? f.slurm_args : f.parallel_args, words_error);
    words_of(slurm ? "--parallel-args" : "--slurm-args", slurm ? f.parallel_args : f.slurm_args, words_error);
    e += words_error;
    if (auto bad = farm::executor_args_problem(f.executor, words); !bad.empty()) e += bad + "\n";
    if (!spec.keep_log.empty())
      e += "--log is for a local bench: on a farm every node would append to one file (the runs' records are in --dir, "
           "and --export-json gives them all)\n";
    if (spec.jobs > 1) e += "--jobs is for a local bench: on a farm each task runs one round, its arms one after another\n";
  }
  if (!e.empty()) e.pop_back();
  return e;
}

util::Result<farm::Experiment> start_farm(const bench::Spec& spec, const FarmOptions& f) {
  farm::Experiment e;
  e.executor = f.executor;
  std::string words_error;
  e.executor_args = words_of("", f.executor == "slurm" ? f.slurm_args : f.parallel_args, words_error);
  e.edashim = util::self_exe();
  e.version = version();
  char buf[4096];
  e.cwd = ::getcwd(buf, sizeof buf) ? buf : ".";
  e.spec = spec;
  std::string dir = farm_dir(f);
  auto shared = user_shared_dirs();
  auto made = farm::create(dir, e, shared);
  if (!made) return made;
  std::vector<int> rounds;
  for (int r = 0; r < spec.runs; ++r) rounds.push_back(r);
  if (auto submitted = farm::submit(dir, *made, made->edashim, rounds, shared); !submitted)
    return std::move(submitted).take_error();
  return made;
}

farm::Collected collect_farm(const std::string& dir, const farm::Experiment& e, bool wait, bool& interrupted,
                             const util::Voice& voice) {
  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_interrupt;
  ::sigemptyset(&sa.sa_mask);
  if (wait) {
    g_stop = false;
    ::sigaction(SIGINT, &sa, &old_int);
    ::sigaction(SIGTERM, &sa, &old_term);
  }
  bool tty = ::isatty(STDERR_FILENO);
  std::string last;
  farm::Collected c;
  auto shared = user_shared_dirs();
  for (int poll = 0;; ++poll) {
    std::string note;
    auto subs = farm::read_submissions(dir, shared);
    auto states = farm::task_states(dir, subs, shared, note);
    c = farm::collect(e, farm::read_rounds(dir, e, shared), states);
    if (!note.empty()) c.outcome.warnings.push_back(note);
    if (!wait || c.finished() || g_stop) break;
    std::string line = farm::progress_line(c, e.spec.runs);
    if (tty) {
      // Redrawn in place, never ended: a progress line, not one of the lines the voice says.
      std::string s = "\r\x1b[K" + voice.who() + ": " + line;
      if (::write(STDERR_FILENO, s.data(), s.size()) < 0) {
      }
    } else if (line != last) {
      voice.say(line);
    }
    last = line;
    // Poll every 2 s, backing off to 15 s on long runs: scontrol is cheap, but a farm's
    // controller serves everyone.
    int wait_ms = std::min(15000, 2000 + poll * 250);
    for (int t = 0; t < wait_ms && !g_stop; t += 100) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (tty && wait && ::write(STDERR_FILENO, "\r\x1b[K", 4) < 0) {
  }
  if (wait) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
  }
  interrupted = wait && g_stop;
  return c;
}

void say_rounds(const std::string& dir, const farm::Collected& c, int rounds, const util::Voice& voice) {
  std::string text = farm::progress_line(c, rounds) + " (figures from the done rounds only)\n";
  for (const auto& r : c.outcome.rounds)
    if (r.state != "done")
      text += "  round " + std::to_string(r.round + 1) + " (task " + std::to_string(r.round) + "): " + r.state +
              (r.detail.empty() ? "" : ": " + farm::printable(r.detail)) + "\n";
  if (!c.resubmittable.empty())
    text += "run the " + std::to_string(c.resubmittable.size()) + " unfinished round(s) again: edashim bench collect " + dir +
            " --resubmit\n";
  else if (!c.finished())
    text += "collect again when they have run: edashim bench collect " + dir + " (or add --wait)\n";
  voice.say(text);
}

util::Result<std::string> resubmit(const std::string& dir, const farm::Experiment& e, const farm::Collected& c) {
  if (c.resubmittable.empty()) return "nothing to resubmit: " + farm::progress_line(c, e.spec.runs);
  if (!e.own)
    return util::fail("--resubmit: " + farm::printable(dir) + " is not your own experiment (the directory or its "
                      "experiment.json belongs to another user): its tasks would run as you what its owner wrote; ask its "
                      "owner to resubmit, or start your own with edashim bench --dir");
  auto edashim = farm::task_edashim(e.edashim, util::file_id(e.edashim), util::file_id("/proc/self/exe"), util::self_exe(),
                                    own_settings().farm_edashim.value);
  if (!edashim) return util::fail(farm::printable(farm::experiment_path(dir)) + ": " + edashim.error());
  auto s = farm::submit(dir, e, *edashim, c.resubmittable, user_shared_dirs());
  if (!s) return std::move(s).take_error();
  return "resubmitted task(s) " + farm::index_ranges(c.resubmittable) + " as " +
         (s->executor == "slurm" ? "Slurm job " : "GNU parallel, pid ") + s->job;
}

}  // namespace commands
