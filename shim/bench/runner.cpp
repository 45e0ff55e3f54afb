#include "bench/runner.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "pipeline/plan.hpp"
#include "report/log_line.hpp"
#include "run/runlog.hpp"
#include "stats/bootstrap.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace bench {
namespace {

constexpr long kTmpfsMagic = 0x01021994;
constexpr const char* kPadVar = "EDASHIM_PAD";

std::atomic<bool> g_interrupted{false};
void on_interrupt(int) { g_interrupted = true; }

bool on_tmpfs(const std::string& dir) {
  struct statfs s;
  return ::statfs(dir.c_str(), &s) == 0 && long(s.f_type) == kTmpfsMagic;
}

// A directory for per-run copies: /dev/shm for tmpfs; $TMPDIR, /var/tmp or /tmp for disk,
// whichever is really on disk (/tmp is often tmpfs).
std::optional<std::string> fresh_base(const std::string& on, std::string& error) {
  std::vector<std::string> candidates;
  if (on == "tmpfs") {
    candidates = {"/dev/shm"};
    if (const char* x = std::getenv("XDG_RUNTIME_DIR")) candidates.emplace_back(x);
  } else {
    if (const char* t = std::getenv("TMPDIR")) candidates.emplace_back(t);
    candidates.insert(candidates.end(), {"/var/tmp", "/tmp"});
  }
  for (const auto& c : candidates) {
    if (!util::is_directory(c) || ::access(c.c_str(), W_OK) != 0) continue;
    if ((on == "tmpfs") != on_tmpfs(c)) continue;
    std::string templ = c + "/edashim-bench-XXXXXX";
    if (::mkdtemp(templ.data())) return templ;
  }
  error = on == "tmpfs" ? "no writable tmpfs directory for --on tmpfs (tried /dev/shm, $XDG_RUNTIME_DIR)"
                        : "no writable on-disk directory for --on disk (tried $TMPDIR, /var/tmp, /tmp)";
  return std::nullopt;
}

bool copy_file(const std::string& from, const std::string& to) {
  auto data = util::read_file(from, std::size_t(4) << 30);
  if (!data) return false;
  if (!util::make_dirs(util::dirname(to))) return false;
  std::ofstream out(to, std::ios::binary);
  out.write(data->data(), std::streamsize(data->size()));
  struct stat st;
  if (::stat(from.c_str(), &st) == 0) ::chmod(to.c_str(), st.st_mode & 07777);
  return bool(out);
}

// Where a --fresh-copy input lands inside the run directory: relative paths keep their shape
// (so the command's own relative references still work), absolute ones keep their name.
std::string copy_target(const std::string& file) {
  if (!file.empty() && file[0] == '/') return util::basename(file);
  std::string rel = file;
  while (util::starts_with(rel, "./")) rel = rel.substr(2);
  return rel;
}

std::size_t env_bytes(const std::vector<std::string>& env) {
  std::size_t n = 0;
  for (const auto& e : env) n += e.size() + 1;
  return n;
}

// The size of the environment the tool would get under `profile`, computed by the same code
// `edashim run` uses, so that padding can make every arm's tool environment the same size.
std::size_t tool_env_bytes(const std::string& profile, const std::vector<std::string>& command,
                           const std::vector<std::string>& env) {
  pipeline::Invocation inv;
  inv.tool = util::basename(command.front());
  inv.argv = command;
  if (command.front().find('/') != std::string::npos) inv.explicit_path = command.front();
  inv.chosen.profile = profile;
  inv.chosen.profile_origin = "--profile";
  inv.strict = true;
  auto plan = pipeline::make_plan(inv, paths::Files::discover(), env);
  // Same length as the scratch directory run/scratch.cpp makes (the pid's digits may differ
  // by one or two between runs, in every arm alike).
  std::string scratch = plan.scratch_base.empty()
                            ? ""
                            : plan.scratch_base + "/edashim-" + std::to_string(::getuid()) + "-" +
                                  std::to_string(::getpid()) + "-XXXXXX";
  return env_bytes(pipeline::plan_environment(plan, env, scratch).env);
}

std::string tail_line(const std::string& path) {
  auto text = util::read_file(path, 1 << 20).value_or("");
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  auto nl = text.rfind('\n');
  std::string last = nl == std::string::npos ? text : text.substr(nl + 1);
  return last.size() > 200 ? last.substr(0, 200) + "..." : last;
}

std::string fmt_duration(double s) {
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", int(s / 3600), int(s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s / 60), int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%.0fs", s);
  return buf;
}

struct Job {
  int arm, round;
  bool warmup;
  int index;  // unique, for directory names
};

}  // namespace

std::vector<std::pair<int, int>> schedule(int arms, int rounds, uint64_t seed) {
  stats::SplitMix64 rng(seed);
  std::vector<std::pair<int, int>> out;
  for (int r = 0; r < rounds; ++r) {
    std::vector<int> order(static_cast<std::size_t>(arms));
    for (int a = 0; a < arms; ++a) order[std::size_t(a)] = a;
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);  // Fisher-Yates
    for (int a : order) out.emplace_back(a, r);
  }
  return out;
}

int physical_cores() {
  std::set<std::pair<std::string, std::string>> cores;
  for (int cpu = 0; cpu < 4096; ++cpu) {
    std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    auto core = util::read_file(base + "core_id");
    if (!core) break;
    cores.emplace(util::read_file(base + "physical_package_id").value_or("0"), *core);
  }
  if (!cores.empty()) return int(cores.size());
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

std::string machine_description() {
  std::string model = "unknown CPU";
  if (auto info = util::read_file("/proc/cpuinfo"))
    for (const auto& line : util::split(*info, '\n'))
      if (util::starts_with(line, "model name")) {
        auto colon = line.find(':');
        if (colon != std::string::npos) model = line.substr(colon + 2);
        break;
      }
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB RAM", double(pages) * double(page) / (1 << 30));
  struct utsname u;
  std::string kernel = ::uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : "";
  return model + ", " + std::to_string(physical_cores()) + " physical cores (" +
         std::to_string(std::thread::hardware_concurrency()) + " logical), " + mem + ", " + kernel;
}

std::optional<Outcome> run(const Spec& spec, std::string& error) {
  Outcome out;
  out.physical_cores = physical_cores();
  out.machine = machine_description();
  if (spec.arms.empty() || spec.command.empty()) {
    error = "nothing to run: give at least one -p PROFILE and a command after --";
    return std::nullopt;
  }
  if (spec.jobs > out.physical_cores)
    out.warnings.push_back("--jobs " + std::to_string(spec.jobs) + " exceeds the " + std::to_string(out.physical_cores) +
                           " physical cores: runs will compete for cores and the timings measure that contention");
  if (spec.compare && spec.jobs > 1 && spec.fresh_copy.empty() && !spec.compare_outputs.empty()) {
    error = "--compare-outputs with --jobs > 1 needs --fresh-copy, or concurrent runs overwrite each other's outputs";
    return std::nullopt;
  }
  for (const auto& f : spec.fresh_copy)
    if (!util::exists(f)) {
      error = "--fresh-copy " + f + ": no such file";
      return std::nullopt;
    }

  const std::string self = util::self_exe();
  char cwd_buf[4096];
  std::string cwd = ::getcwd(cwd_buf, sizeof cwd_buf) ? cwd_buf : ".";
  // Relative tool paths must survive the change into a fresh directory.
  std::vector<std::string> command = spec.command;
  if (command[0].find('/') != std::string::npos && command[0][0] != '/') command[0] = cwd + "/" + command[0];
  for (auto& a : command)
    for (const auto& f : spec.fresh_copy)
      if (a == f && !f.empty() && f[0] == '/') a = copy_target(f);  // absolute input: use the copy

  std::string tmp = "/tmp";
  if (const char* t = std::getenv("TMPDIR"); t && *t) tmp = t;
  std::string work = tmp + "/edashim-bench-XXXXXX";
  if (!::mkdtemp(work.data())) {
    error = "cannot create a directory in " + tmp + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::string fresh;
  if (!spec.fresh_copy.empty()) {
    auto base = fresh_base(spec.on, error);
    if (!base) {
      util::remove_tree(work);
      return std::nullopt;
    }
    fresh = *base;
  }

  // The environment every run starts from: ours, minus what would override the arm's profile
  // or make the inner edashim step aside.
  std::vector<std::string> base_env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    if (name == "EDASHIM" || name == "EDASHIM_PROFILE" || name == "EDASHIM_ALLOCATOR" || name == "EDASHIM_LOG" ||
        name == kPadVar || name == pipeline::kChainVar)
      continue;
    base_env.push_back(kv);
  }
  // Every run's log path has the same length (fixed-width run numbers), so it pads nothing.
  auto log_for = [&](int index) {
    char name[32];
    std::snprintf(name, sizeof name, "/r%06d", index);
    return work + name;
  };
  std::vector<std::size_t> sizes;
  {
    auto env = base_env;
    env.push_back("EDASHIM_LOG=" + log_for(0) + "/log.jsonl");
    env.push_back(std::string(kPadVar) + "=");
    for (const auto& arm : spec.arms) sizes.push_back(tool_env_bytes(arm.profile, command, env));
  }
  std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  std::vector<std::string> pads;
  for (std::size_t s : sizes) {
    pads.push_back(std::string(kPadVar) + "=" + std::string(largest - s + 8, 'x'));  // 8: never empty
    out.env_bytes.push_back(largest + 8);
  }

  // The whole schedule: warm-up rounds, then measured rounds, each round shuffled.
  std::vector<Job> jobs;
  int index = 0;
  for (auto [arm, round] : schedule(int(spec.arms.size()), spec.warmup, spec.seed ^ 0x5741524dULL))
    jobs.push_back({arm, round, true, ++index});
  for (auto [arm, round] : schedule(int(spec.arms.size()), spec.runs, spec.seed))
    jobs.push_back({arm, round, false, ++index});

  std::vector<Run> results(jobs.size());
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  bool tty = spec.progress && ::isatty(STDERR_FILENO);
  auto t0 = std::chrono::steady_clock::now();
  auto draw = [&](const std::string& current) {
    if (!tty) return;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double eta = done ? elapsed / double(done) * double(jobs.size() - done) : 0;
    int width = 30, filled = int(double(width) * double(done) / double(jobs.size()));
    std::string bar = "\r\x1b[K  [" + std::string(std::size_t(filled), '#') + std::string(std::size_t(width - filled), '.') +
                      "] " + std::to_string(done) + "/" + std::to_string(jobs.size()) +
                      (done ? "  ETA " + fmt_duration(eta) : std::string()) + "  " + current;
    if (::write(STDERR_FILENO, bar.data(), bar.size()) < 0) {
    }
  };

  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_interrupt;
  ::sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  g_interrupted = false;

  auto execute = [&](std::size_t j) {
    const Job& job = jobs[j];
    Run& r = results[j];
    r.arm = job.arm;
    r.round = job.round;
    r.order = int(j);
    std::string rundir = log_for(job.index);
    ::mkdir(rundir.c_str(), 0700);
    std::string workdir = cwd;
    if (!fresh.empty()) {
      workdir = fresh + rundir.substr(work.size());
      for (const auto& f : spec.fresh_copy)
        if (!copy_file(f, workdir + "/" + copy_target(f))) {
          r.failure = "cannot copy " + f + " into " + workdir;
          return;
        }
      if (!util::is_directory(workdir)) util::make_dirs(workdir, 0700);
    }
    std::vector<std::string> env = base_env;
    env.push_back("EDASHIM_LOG=" + rundir + "/log.jsonl");
    env.push_back(pads[std::size_t(job.arm)]);
    std::vector<std::string> args{self, "run", "--strict", "-p", spec.arms[std::size_t(job.arm)].profile, "--"};
    args.insert(args.end(), command.begin(), command.end());
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string out_path = rundir + "/stdout", err_path = rundir + "/stderr";
    pid_t pid = ::fork();
    if (pid == 0) {
      // Only async-signal-safe calls between fork and exec.
      if (::chdir(workdir.c_str()) != 0) ::_exit(126);
      int in = ::open("/dev/null", O_RDONLY);
      int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (in < 0 || o < 0 || e < 0) ::_exit(126);
      ::dup2(in, 0);
      ::dup2(o, 1);
      ::dup2(e, 2);
      ::execve(self.c_str(), argv.data(), envp.data());
      ::_exit(127);
    }
    if (pid < 0) {
      r.failure = std::string("fork: ") + std::strerror(errno);
      return;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    auto line = util::read_file(rundir + "/log.jsonl").value_or("");
    while (!line.empty() && line.back() == '\n') line.pop_back();
    report::RunRecord rec;
    if (line.empty() || !report::parse_run_line(line, rec)) {
      r.failure = "no run record (edashim did not run the tool): " + tail_line(err_path);
    } else {
      r.wall_s = rec.wall_s;
      r.user_s = rec.user_s;
      r.sys_s = rec.sys_s;
      r.max_rss_kb = rec.max_rss_kb;
      r.start_unix = rec.start_unix;
      r.exit_code = rec.exit_code;
      r.signal = rec.signal;
      r.verified = rec.allocator_verified;
      r.ok = rec.ok() && WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!r.ok) {
        std::string why = rec.signal ? "killed by signal " + std::to_string(*rec.signal)
                                     : "exit status " + std::to_string(rec.exit_code.value_or(WEXITSTATUS(status)));
        r.failure = why + ": " + tail_line(err_path);
      }
      if (!job.warmup && !spec.keep_log.empty()) {
        std::string err;
        std::lock_guard lock(mu);
        run::append_log_line(spec.keep_log, line, err);
      }
    }
    if (spec.compare) {
      auto hash = [](const std::string& path) {
        auto data = util::read_file(path, std::size_t(4) << 30);
        return data ? util::sha256_hex(*data) : std::string("missing");
      };
      r.hashes["stdout"] = hash(out_path);
      for (const auto& f : spec.compare_outputs) r.hashes[f] = hash(f[0] == '/' ? f : workdir + "/" + f);
    }
    if (!fresh.empty()) util::remove_tree(workdir);
    util::remove_tree(rundir);
  };

  auto worker = [&] {
    for (;;) {
      if (g_interrupted) return;
      std::size_t j = next++;
      if (j >= jobs.size()) return;
      {
        std::lock_guard lock(mu);
        draw(spec.arms[std::size_t(jobs[j].arm)].name + (jobs[j].warmup ? " (warm-up)" : ""));
      }
      execute(j);
      std::lock_guard lock(mu);
      ++done;
      draw("");
    }
  };
  int n_workers = std::max(1, std::min<int>(spec.jobs, int(jobs.size())));
  if (n_workers == 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (int i = 0; i < n_workers; ++i) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }
  if (tty && ::write(STDERR_FILENO, "\r\x1b[K", 4) < 0) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  out.interrupted = g_interrupted;

  std::size_t warm_failed = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (j >= next && out.interrupted) break;
    if (jobs[j].warmup) {
      if (!results[j].ok) ++warm_failed;
      continue;
    }
    out.runs.push_back(results[j]);
  }
  if (warm_failed) out.warnings.push_back(std::to_string(warm_failed) + " warm-up run(s) failed");
  util::remove_tree(work);
  if (!fresh.empty()) util::remove_tree(fresh);
  return out;
}

}  // namespace bench
