#include "farm/round_task.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "bench/runner.hpp"
#include "farm/experiment.hpp"
#include "farm/scheduler.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/machine.hpp"

#ifndef EDASHIM_VERSION
#define EDASHIM_VERSION "unknown"
#endif

namespace farm {
namespace {

// On SIGTERM (scancel, a time limit, a preemption) the round's file says so at once: collect
// then lists the round as partial with the reason, not just "missing". The run under way is
// told too; once it has ended, its session's directories are removed and the task dies of the
// signal, as it would have directly (GNU parallel and Slurm report it so).
int g_part_fd = -1;
volatile sig_atomic_t g_terminated = 0;
char g_term_line[] =
    "{\"error\":\"the task was terminated (SIGTERM: scancel, a time limit or preemption)\",\"terminated\":true}\n";

void on_term(int) {
  if (!g_terminated && g_part_fd >= 0 && ::write(g_part_fd, g_term_line, sizeof g_term_line - 1) < 0) {
  }
  g_terminated = 1;
  bench::Session::signal_runs(SIGTERM);
}

bool append(int fd, const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += std::size_t(n);
  }
  return true;
}

// An earlier attempt's partial file is kept beside the new one (never overwritten): what it
// ran is evidence of what killed it.
void set_aside(const std::string& dir, int round) {
  std::string part = round_path(dir, round, false);
  if (!util::exists(part)) return;
  for (int k = 1; k < 10000; ++k) {
    std::string to = part.substr(0, part.size() - 5) + ".attempt-" + std::to_string(k);
    if (!util::exists(to)) {
      ::rename(part.c_str(), to.c_str());
      return;
    }
  }
}

// The round's runs, a line each in its file (`fd`), until a SIGTERM; false when a line cannot be
// written (errno says why).
bool run_jobs(bench::Session& session, const std::vector<bench::Job>& jobs, int round, int fd) {
  for (const auto& job : jobs) {
    if (g_terminated) break;
    std::string line;
    RoundRun r{session.execute(job, &line), job.warmup};
    r.run.round = round;
    if (g_terminated) break;  // a run cut short by the signal is not a measurement
    if (!append(fd, run_line(r, line))) return false;
  }
  return true;
}

}  // namespace

std::string task_name() {
  const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (job && task) return std::string("slurm ") + job + "_" + task;
  if (const char* j = std::getenv("SLURM_JOB_ID")) return std::string("slurm ") + j;
  if (const char* seq = std::getenv("PARALLEL_SEQ")) return std::string("parallel ") + seq;
  return "";
}

int run_round(const std::string& dir, int round, const std::string& fingerprint, const util::SharedDirs& shared,
              const bench::Previewer& preview, const util::Voice& voice) {
  auto e = load(dir, EDASHIM_VERSION, shared);
  if (!e && e.error().find(" was made by edashim ") != std::string::npos) {
    // Another version's experiment: said in the round's file below, where collect reads it.
    auto text = farm::read_owned(experiment_path(dir), shared, std::size_t(16) << 20);
    auto other = text ? from_json(*text) : util::Result<Experiment>(std::move(text).take_error());
    if (!other || check_fingerprint(dir, *other, shared)) e = std::move(other);
  }
  if (!e) return voice.fail(printable(e.error()));
  if (!fingerprint.empty() && fingerprint != e->fingerprint)
    return voice.fail(printable(experiment_path(dir)) + " is not the experiment this task was submitted for (fingerprint " +
                      printable(e->fingerprint.substr(0, 64)) + ", submitted " + printable(fingerprint.substr(0, 64)) +
                      "): it was replaced; refusing to run it");
  if (auto bad = util::check_owned_dir(dir + "/rounds", shared); !bad) return voice.fail(bad.error());
  if (round < 0 || round >= e->spec.runs)
    return voice.fail("round " + std::to_string(round) + " is not one of the experiment's rounds 0-" +
                      std::to_string(e->spec.runs - 1), 2);
  if (util::exists(round_path(dir, round, true)))
    return voice.fail("round " + std::to_string(round) + " is already complete in " + dir + "; nothing to do", 0);
  set_aside(dir, round);
  std::string part = round_path(dir, round, false);
  util::Fd part_fd(::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!part_fd) return voice.fail("cannot create " + part + ": " + std::strerror(errno));
  auto fail = [&](const std::string& message) {
    append(part_fd.get(), error_line(message));
    g_part_fd = -1;
    part_fd.reset();
    return voice.fail("round " + std::to_string(round) + ": " + message);
  };
  append(part_fd.get(), header_line(round, e->fingerprint, util::host_name(), util::cpu_model(nullptr).value_or(""), task_name()));
  if (e->version != EDASHIM_VERSION)
    return fail("this node's edashim is version " + std::string(EDASHIM_VERSION) + ", the experiment's is " + e->version +
                ": install the same edashim on every node, at " + printable(e->edashim));
  if (::chdir(e->cwd.c_str()) != 0)
    return fail("cannot enter the command's directory " + e->cwd + " on this node: " + std::strerror(errno) +
                " (it must be on storage every node shares)");
  g_part_fd = part_fd.get();
  struct sigaction sa {};
  sa.sa_handler = on_term;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  auto checked = bench::check(e->spec, preview);
  if (!checked) return fail(checked.error());
  auto session = bench::Session::open(e->spec, *checked);
  if (!session) return fail(session.error());

  if (!run_jobs(**session, bench::round_jobs(e->spec, round), round, part_fd.get()))
    return fail("cannot write " + part + ": " + std::strerror(errno));
  g_part_fd = -1;
  if (g_terminated) {
    session->reset();
    part_fd.reset();
    ::signal(SIGTERM, SIG_DFL);
    ::raise(SIGTERM);
  }
  ::signal(SIGTERM, SIG_DFL);
  bool synced = ::fsync(part_fd.get()) == 0 || errno == EINVAL;
  part_fd.reset();
  if (!synced || ::rename(part.c_str(), round_path(dir, round, true).c_str()) != 0)
    return voice.fail("cannot complete " + part + ": " + std::strerror(errno));
  return 0;
}

}  // namespace farm
