#include "bench/runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "bench/outputs.hpp"
#include "bench/outputs_record.hpp"
#include "runlog/tree_peak.hpp"
#include "runlog/append.hpp"
#include "runlog/read.hpp"
#include "stats/bootstrap.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace bench {
namespace {

constexpr long kTmpfsMagic = 0x01021994;
constexpr const char* kPadVar = "EDASHIM_PAD";
constexpr uint64_t kWarmupSalt = 0x5741524dULL;  // warm-up rounds' shuffle: not the measured rounds' own

std::atomic<bool> g_interrupted{false};
void on_interrupt(int) { g_interrupted = true; }

// The runs under way, for Session::signal_runs: one slot per worker thread at most (--jobs is
// capped far below this; a run that finds no free slot is only not signalled).
std::atomic<pid_t> g_running[256];
static_assert(std::atomic<pid_t>::is_always_lock_free, "read from a signal handler");

std::atomic<pid_t>* hold_slot(pid_t pid) {
  for (auto& slot : g_running) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, pid)) return &slot;
  }
  return nullptr;
}

bool on_tmpfs(const std::string& dir) {
  struct statfs s;
  return ::statfs(dir.c_str(), &s) == 0 && long(s.f_type) == kTmpfsMagic;
}

// A directory for per-run copies: /dev/shm for tmpfs; $TMPDIR, /var/tmp or /tmp for disk,
// whichever is really on disk (/tmp is often tmpfs).
util::Result<std::string> fresh_base(const std::string& on) {
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
  return util::fail(on == "tmpfs" ? "no writable tmpfs directory for --on tmpfs (tried /dev/shm, $XDG_RUNTIME_DIR)"
                                  : "no writable on-disk directory for --on disk (tried $TMPDIR, /var/tmp, /tmp)");
}

// Close-on-exec like every descriptor bench opens: another thread may be spawning a run.
bool copy_file(const std::string& from, const std::string& to) {
  auto data = util::read_file(from, std::size_t(4) << 30);
  if (!data) return false;
  if (!util::make_dirs(util::dirname(to))) return false;
  struct stat st;
  mode_t mode = ::stat(from.c_str(), &st) == 0 ? st.st_mode & 07777 : 0600;
  int fd = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < data->size()) {
    ssize_t n = ::write(fd, data->data() + done, data->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  bool ok = ::close(fd) == 0 && done == data->size();
  ::chmod(to.c_str(), mode);  // the umask may have taken bits off
  return ok;
}

// Where a --fresh-copy input is copied from: where it is, or a farm's snapshot of it.
std::string copy_source(const Spec& spec, const std::string& file) {
  return spec.fresh_copy_from.empty() ? file : spec.fresh_copy_from + "/" + copy_target(file);
}

// Variables that would override the arm's profile or make the inner edashim step aside, and
// edashim's internal markers (__EDASHIM_*): none of the caller's may reach a run.
bool stripped(const std::string& name) {
  return name == "EDASHIM" || name == "EDASHIM_PROFILE" || name == "EDASHIM_ALLOCATOR" || name == "EDASHIM_LOG" ||
         name == "EDASHIM_EXPLORE" || name == "EDASHIM_SUPERVISE" || name == kPadVar || util::starts_with(name, "__EDASHIM");
}

// The environment every run starts from: ours, without the stripped variables.
std::vector<std::string> base_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (!stripped(kv.substr(0, kv.find('=')))) env.push_back(kv);
  }
  // An arm measures one choice: the "current" arm (no -p) must not explore another allocator.
  env.push_back("EDASHIM_EXPLORE=0");
  // Each run supervised: its figures are wait4's (the tool's process tree, as it ended), which
  // exec in place can only approximate (pipeline/finish.hpp), for every way a run ends.
  env.push_back("EDASHIM_SUPERVISE=1");
  return env;
}

std::string temp_root() {
  if (const char* t = std::getenv("TMPDIR"); t && *t) return t;
  return "/tmp";
}

// The directory of run logs, before mkdtemp fills in the X's (the same length after).
std::string work_template() { return temp_root() + "/edashim-bench-XXXXXX"; }

// Every run's log path has the same length (fixed-width run numbers), so it pads nothing.
std::string run_dir(const std::string& work, int index) {
  char name[32];
  std::snprintf(name, sizeof name, "/r%06d", index);
  return work + name;
}

std::string current_dir() {
  char buf[4096];
  return ::getcwd(buf, sizeof buf) ? buf : ".";
}

// Runs `program` with `args` and `env` in `workdir`, stdin /dev/null, its stdout and stderr to
// the two files (stderr with stdout when `err_path` is empty), and waits for it (its wait status
// in `status`); 0, or posix_spawn's error. While it runs, Session::signal_runs reaches it.
int spawn_and_wait(const std::string& program, std::vector<std::string> args, std::vector<std::string> env,
                   const std::string& workdir, const std::string& out_path, const std::string& err_path, int& status) {
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  // The child's 0, 1 and 2 are opened by the spawn itself: no descriptor of ours exists for
  // it to inherit, whatever other threads have open (theirs are all close-on-exec).
  posix_spawn_file_actions_t fa;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawn_file_actions_addchdir_np(&fa, workdir.c_str());
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (err_path.empty())
    ::posix_spawn_file_actions_adddup2(&fa, 1, 2);
  else
    ::posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return rc;
  // The slot is let go before the run is reaped: its pid cannot be another process's yet.
  std::atomic<pid_t>* slot = hold_slot(pid);
  siginfo_t ended;
  while (::waitid(P_PID, id_t(pid), &ended, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  if (slot) slot->store(0);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return 0;
}

// The command as every run gives it: a relative tool path made absolute (runs may start in a
// fresh directory), an absolute --fresh-copy input replaced by its copy.
std::vector<std::string> run_command(const Spec& spec, const std::string& cwd) {
  std::vector<std::string> command = spec.command;
  if (command.empty()) return command;
  if (command[0].find('/') != std::string::npos && command[0][0] != '/') command[0] = cwd + "/" + command[0];
  for (auto& a : command)
    for (const auto& f : spec.fresh_copy)
      if (a == f && !f.empty() && f[0] == '/') a = copy_target(f);
  return command;
}

// The file's last line (cut at 200 characters), or `when_empty`.
std::string tail_line(const std::string& path, const char* when_empty) {
  auto text = util::read_file(path, 1 << 20).value_or("");
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return when_empty;
  auto nl = text.rfind('\n');
  std::string last = nl == std::string::npos ? text : text.substr(nl + 1);
  return last.size() > 200 ? last.substr(0, 200) + "..." : last;
}

// Runs `command` with /bin/sh -c in `dir`, untimed, its output to `log` (stdin /dev/null);
// "" when it exited 0, else what happened with the log's last line.
std::string run_shell(const std::string& command, const std::string& dir, const std::vector<std::string>& env,
                      const std::string& log) {
  int status = 0;
  if (int rc = spawn_and_wait("/bin/sh", {"/bin/sh", "-c", command}, env, dir, log, "", status); rc != 0)
    return std::string("cannot start /bin/sh: ") + std::strerror(rc);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                        : "exit status " + std::to_string(WEXITSTATUS(status));
  return why + ": " + tail_line(log, "no output");
}


// --prepare before a run, in its directory: "" when it succeeded or there is none, else why.
std::string prepare_failure(const Spec& spec, const std::string& workdir, const std::vector<std::string>& env,
                            const std::string& rundir) {
  if (spec.prepare.empty()) return "";
  auto bad = run_shell(spec.prepare, workdir, env, rundir + "/prepare.out");
  return bad.empty() ? "" : "--prepare failed, " + bad;
}

// The run's lines in its private log, its own last (its tool ended last; the lines before it are
// its child runs'), and its record, whose peak is its tree's (runlog/tree_peak.hpp), in every arm
// alike. False when the run left no line of its own.
bool read_run_tree(const std::string& log, std::vector<std::string>& lines, runlog::RunRecord& rec) {
  lines = util::split(util::read_file(log).value_or(""), '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  runlog::TreePeaks tree;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    runlog::RunRecord child;
    if (runlog::parse_run_line(lines[i], child)) tree.fold(child);  // its peak, kept for its parent
  }
  if (lines.empty() || !runlog::parse_run_line(lines.back(), rec)) return false;
  rec.vm_peak_kb = tree.fold(rec);
  return true;
}

// Why a run that left its line failed: its signal or exit status, and its stderr's last line.
std::string run_failure(const runlog::RunRecord& rec, int status, const std::string& err_path) {
  std::string why = rec.signal ? "killed by signal " + std::to_string(*rec.signal)
                               : "exit status " + std::to_string(rec.exit_code.value_or(WEXITSTATUS(status)));
  return why + ": " + tail_line(err_path, "nothing on stderr");
}

// --show-output: a finished run's stdout and stderr, copied to ours whole (runs at the same time
// do not interleave within one). The tool's own words, as it wrote them: no voice of ours.
void show_output(const std::string& out_path, const std::string& err_path) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  for (auto [path, fd] : {std::pair{&out_path, STDOUT_FILENO}, std::pair{&err_path, STDERR_FILENO}}) {
    std::string text = util::read_file(*path, 64 << 20).value_or("");
    for (size_t done = 0; done < text.size();) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += size_t(n);
    }
  }
}

// The 1-minute load average; NaN when /proc/loadavg cannot be read.
double load_average() {
  auto text = util::read_file("/proc/loadavg", 256);
  if (!text) return std::nan("");
  try {
    return std::stod(*text);
  } catch (...) {
    return std::nan("");
  }
}

std::string fmt_duration(double s) {
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%dh%02dm", int(s / 3600), int(s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s / 60), int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%.0fs", s);
  return buf;
}

}  // namespace

std::vector<std::string> selection_args(const std::string& profile) {
  if (profile.empty()) return {};
  // "system" is glibc's malloc with the tool's own settings, as explore_profiles means it; the
  // `baseline` profile also turns scratch and the probe's extras off.
  if (profile == kSystemArm) return {"-a", "system"};
  return {"-p", profile};
}

std::string copy_target(const std::string& file) {
  if (!file.empty() && file[0] == '/') return util::basename(file);
  std::string rel = file;
  while (util::starts_with(rel, "./")) rel = rel.substr(2);
  return rel;
}

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

util::Result<Checked> check(const Spec& spec, const Previewer& preview) {
  std::vector<std::string> problems;
  if (spec.arms.empty()) problems.push_back("no arm: give at least one -p PROFILE");
  if (spec.command.empty()) problems.push_back("no command: give it after --, e.g. -- yosys -q -s flow.ys");
  // hyperfine's habit, one quoted string: bench runs a command's words without a shell.
  bool one_word = spec.command.size() == 1 && spec.command[0].find_first_of(" \t") != std::string::npos &&
                  !util::exists(spec.command[0]);
  if (one_word)
    problems.push_back("the command is one word, '" + spec.command[0] + "': bench runs a command without a shell, so "
                       "give its words apart, unquoted, after --: edashim bench ... -- " + spec.command[0]);
  if (spec.compare && spec.jobs > 1 && spec.fresh_copy.empty() && !spec.compare_outputs.empty())
    problems.push_back("--compare-outputs with --jobs > 1 needs --fresh-copy, or concurrent runs overwrite each other's "
                       "outputs");
  if (spec.compare && !spec.compare_stdout && spec.compare_outputs.empty())
    problems.push_back("--no-compare-stdout leaves nothing to compare: name the files, --compare-outputs net.v");
  if (!spec.stdout_filter.empty()) {
    if (!spec.compare || !spec.compare_stdout)
      problems.push_back("--stdout-filter applies to stdout's hash: add --compare-outputs, without --no-compare-stdout");
    try {
      std::regex check_only(spec.stdout_filter);
    } catch (const std::regex_error& e) {
      problems.push_back("--stdout-filter '" + spec.stdout_filter + "' is not a valid regular expression (ECMAScript, "
                         "as in JavaScript): " + e.what());
    }
  }
  for (const auto& f : spec.fresh_copy)
    if (!util::exists(copy_source(spec, f))) problems.push_back("--fresh-copy " + copy_source(spec, f) + ": no such file");
  for (const auto& f : spec.compare_outputs)
    if (f.empty() || f == "stdout")
      problems.push_back("--compare-outputs '" + f + "': not a file name" + (f.empty() ? "" : " (a file named stdout: ./stdout)"));
  Checked out;
  if (!spec.arms.empty() && !spec.command.empty() && !one_word) {
    auto env = base_environment();
    env.push_back("EDASHIM_LOG=" + run_dir(work_template(), 0) + "/log.jsonl");
    env.push_back(std::string(kPadVar) + "=");
    auto command = run_command(spec, current_dir());
    std::map<std::string, ArmPreview> seen;  // one preview per distinct profile
    std::set<std::string> said;              // a problem of the command (tool not found) is said once
    for (const auto& arm : spec.arms) {
      auto [it, fresh] = seen.try_emplace(arm.profile);
      if (fresh) {
        it->second = preview(arm.profile, command, env);
        std::string who = arm.name == arm.profile ? "-p " + arm.profile : arm.name;
        for (const auto& e : it->second.errors)
          if (said.insert(e).second) problems.push_back(who + ": " + e);
        for (const auto& w : it->second.warnings)
          if (said.insert(w).second) out.warnings.push_back(who + ": " + w);
      }
      out.tool_env_bytes.push_back(it->second.tool_env_bytes);
      out.probe_off.push_back(it->second.probe_off);
    }
  }
  if (!problems.empty()) return util::fail(util::join(problems, "\n"));
  int cores = physical_cores();
  if (spec.jobs > cores)
    out.warnings.push_back("--jobs " + std::to_string(spec.jobs) + " exceeds the " + std::to_string(cores) +
                           " physical cores: runs will compete for cores and the timings measure that contention");
  return out;
}

struct Session::Impl {
  explicit Impl(const Spec& sp) : spec(sp) {}
  const Spec& spec;
  std::optional<std::regex> stdout_filter;
  std::string self, cwd, work, fresh;
  std::vector<std::string> command, base_env, pads;
  std::vector<std::size_t> env_bytes;
  mutable std::mutex log_mu;  // keep_log appends, from several runs at once
  std::string log_refused;    // the first refusal only: the same reason for every run after it

  // A measured run's line into keep_log, marked as this bench's (mark_bench_line).
  // The run's line, marked as the arm's, after its child runs' lines as they are (each a run of
  // its own tool, with that tool's profile).
  void keep(const std::vector<std::string>& lines, const Job& job) {
    std::string marked = mark_bench_line(lines.back(), spec.experiment, spec.arms[std::size_t(job.arm)], job.round);
    std::lock_guard lock(log_mu);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      auto written = runlog::append_line(spec.keep_log, i + 1 < lines.size() ? lines[i] : marked, {},
                                         spec.keep_log_shared);
      if (!written) {
        if (log_refused.empty()) log_refused = "cannot keep the runs in " + spec.keep_log + ": " + written.error();
        return;
      }
    }
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Session::~Session() {
  util::remove_tree(impl_->work);
  if (!impl_->fresh.empty()) util::remove_tree(impl_->fresh);
}

void Session::signal_runs(int sig) noexcept {
  for (auto& slot : g_running)
    if (pid_t pid = slot.load(); pid > 0) ::kill(pid, sig);
}

const std::vector<std::size_t>& Session::env_bytes() const { return impl_->env_bytes; }
const std::string& Session::work_dir() const { return impl_->work; }

std::string Session::keep_refused() const {
  std::lock_guard lock(impl_->log_mu);
  return impl_->log_refused;
}

util::Result<std::unique_ptr<Session>> Session::open(const Spec& spec, const Checked& checked) {
  auto s = std::make_unique<Impl>(spec);
  s->self = util::self_exe();
  s->cwd = current_dir();
  s->work = work_template();
  if (!spec.stdout_filter.empty()) s->stdout_filter.emplace(spec.stdout_filter);
  s->command = run_command(spec, s->cwd);
  if (!::mkdtemp(s->work.data())) return util::fail("cannot create a directory in " + temp_root() + ": " + std::strerror(errno));
  if (!spec.fresh_copy.empty()) {
    auto base = fresh_base(spec.on);
    if (!base) {
      util::remove_tree(s->work);
      return std::move(base).take_error();
    }
    s->fresh = *base;
  }
  s->base_env = base_environment();
  // Padding: every arm's tool gets an environment of the largest arm's size.
  const auto& sizes = checked.tool_env_bytes;
  std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  for (std::size_t size : sizes) {
    s->pads.push_back(std::string(kPadVar) + "=" + std::string(largest - size + 8, 'x'));  // 8: never empty
    s->env_bytes.push_back(largest + 8);
  }
  return std::unique_ptr<Session>(new Session(std::move(s)));
}

ArmRun Session::execute(const Job& job, std::string* log_line) {
  const Impl& s = *impl_;
  const Spec& spec = s.spec;
  ArmRun r;
  r.arm = job.arm;
  r.round = job.round;
  r.order = job.order;
  std::string rundir = run_dir(s.work, job.index);
  ::mkdir(rundir.c_str(), 0700);
  std::string workdir = s.cwd;
  if (!s.fresh.empty()) {
    workdir = s.fresh + rundir.substr(s.work.size());
    for (const auto& f : spec.fresh_copy)
      if (!copy_file(copy_source(spec, f), workdir + "/" + copy_target(f))) {
        r.failure = "cannot copy " + f + " into " + workdir;
        return r;
      }
    if (!util::is_directory(workdir)) util::make_dirs(workdir, 0700);
  }
  if (r.failure = prepare_failure(spec, workdir, s.base_env, rundir); !r.failure.empty()) {
    if (!s.fresh.empty()) util::remove_tree(workdir);
    util::remove_tree(rundir);
    return r;
  }
  std::vector<std::string> env = s.base_env;
  env.push_back("EDASHIM_LOG=" + rundir + "/log.jsonl");
  env.push_back(s.pads[std::size_t(job.arm)]);
  std::vector<std::string> args{s.self, "run", "--strict"};
  for (const auto& a : selection_args(spec.arms[std::size_t(job.arm)].profile)) args.push_back(a);
  args.push_back("--");
  args.insert(args.end(), s.command.begin(), s.command.end());
  std::string out_path = rundir + "/stdout", err_path = rundir + "/stderr";
  int status = 0;
  if (int rc = spawn_and_wait(s.self, std::move(args), std::move(env), workdir, out_path, err_path, status); rc != 0) {
    r.failure = "cannot start " + s.self + " in " + workdir + ": " + std::strerror(rc);
    util::remove_tree(rundir);
    if (!s.fresh.empty()) util::remove_tree(workdir);
    return r;
  }
  std::vector<std::string> lines;
  runlog::RunRecord& rec = r.record;
  if (!read_run_tree(rundir + "/log.jsonl", lines, rec)) {
    r.failure = "no run record (edashim did not run the tool): " + tail_line(err_path, "nothing on stderr");
  } else {
    const std::string& line = lines.back();
    r.ok = rec.ok() && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!r.ok) r.failure = run_failure(rec, status, err_path);
    // With its child runs' lines, so that report folds the same tree.
    if (!job.warmup && !spec.keep_log.empty()) impl_->keep(lines, job);
    if (log_line) *log_line = line;
  }
  if (spec.show_output) show_output(out_path, err_path);
  const std::regex* filter = s.stdout_filter ? &*s.stdout_filter : nullptr;
  if (spec.compare && spec.compare_stdout) r.hashes["stdout"] = hash_output(out_path, filter);
  if (spec.compare)
    for (const auto& f : spec.compare_outputs) r.hashes[f] = hash_output(f[0] == '/' ? f : workdir + "/" + f, nullptr);
  if (!s.fresh.empty()) util::remove_tree(workdir);
  util::remove_tree(rundir);
  return r;
}

std::vector<Job> jobs_of(const Spec& spec) {
  std::vector<Job> jobs;
  int index = 0;
  for (auto [arm, round] : schedule(int(spec.arms.size()), spec.warmup, spec.seed ^ kWarmupSalt))
    jobs.push_back({arm, round, true, ++index, 0});
  for (auto [arm, round] : schedule(int(spec.arms.size()), spec.runs, spec.seed))
    jobs.push_back({arm, round, false, ++index, 0});
  for (std::size_t j = 0; j < jobs.size(); ++j) jobs[j].order = int(j);
  return jobs;
}

std::vector<Job> round_jobs(const Spec& spec, int round) {
  std::vector<Job> jobs;
  int index = 0;
  for (auto [arm, r] : schedule(int(spec.arms.size()), spec.warmup, spec.seed ^ kWarmupSalt ^ uint64_t(round)))
    jobs.push_back({arm, r, true, ++index, -1});
  for (const auto& job : jobs_of(spec))
    if (!job.warmup && job.round == round) jobs.push_back({job.arm, round, false, ++index, job.order});
  return jobs;
}

namespace {

// --setup or --cleanup (`what`), once, where bench runs: "" when it succeeded or there is none.
std::string hook(const char* what, const std::string& command, const Session& session) {
  if (command.empty()) return "";
  auto bad = run_shell(command, current_dir(), base_environment(), session.work_dir() + "/" + what + ".out");
  return bad.empty() ? "" : std::string("--") + what + " failed, " + bad + (what[0] == 's' ? "; nothing was measured" : "");
}

// The measured runs that finished into `out`, in schedule order; failed warm-ups counted.
void keep_measured(const std::vector<Job>& jobs, const std::vector<ArmRun>& results, std::size_t started, BenchResult& out) {
  std::size_t warm_failed = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (j >= started && (out.interrupted || !out.stopped_at.empty())) break;
    if (jobs[j].warmup) {
      if (!results[j].ok) ++warm_failed;
      continue;
    }
    out.runs.push_back(results[j]);
  }
  if (warm_failed) out.warnings.push_back(std::to_string(warm_failed) + " warm-up run(s) failed");
}

}  // namespace

// The progress bar is redrawn in place on a terminal and never ends a line: it is written straight
// to stderr, not said by the command's voice (which says whole lines).
util::Result<BenchResult> run(const Spec& spec, const Previewer& preview) {
  auto checked = check(spec, preview);
  if (!checked) return std::move(checked).take_error();
  BenchResult out;
  out.physical_cores = physical_cores();
  out.machine = machine_description();
  out.warnings = checked->warnings;
  auto opened = Session::open(spec, *checked);
  if (!opened) return std::move(opened).take_error();
  std::unique_ptr<Session> session = std::move(*opened);
  out.env_bytes = session->env_bytes();
  out.logical_cpus = int(std::max(1u, std::thread::hardware_concurrency()));
  out.load_before = load_average();
  if (auto bad = hook("setup", spec.setup, *session); !bad.empty()) return util::fail(bad);
  // The whole schedule: warm-up rounds, then measured rounds, each round shuffled.
  const std::vector<Job> jobs = jobs_of(spec);
  std::vector<ArmRun> results(jobs.size());
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

  std::atomic<bool> stop{false};
  auto worker = [&] {
    for (;;) {
      if (g_interrupted || stop) return;
      std::size_t j = next++;
      if (j >= jobs.size()) return;
      {
        std::lock_guard lock(mu);
        draw(spec.arms[std::size_t(jobs[j].arm)].name + (jobs[j].warmup ? " (warm-up)" : ""));
      }
      results[j] = session->execute(jobs[j]);
      std::lock_guard lock(mu);
      ++done;
      draw("");
      if (!results[j].ok && spec.stop_at_failure && !stop.exchange(true))
        out.stopped_at = spec.arms[std::size_t(jobs[j].arm)].name + ", " +
                         (jobs[j].warmup ? "warm-up" : "round " + std::to_string(jobs[j].round + 1)) + ": " +
                         results[j].failure;
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
  out.load_after = load_average();
  if (auto bad = hook("cleanup", spec.cleanup, *session); !bad.empty()) out.warnings.push_back(bad);
  keep_measured(jobs, results, next, out);
  out.keep_refused = session->keep_refused();
  return out;
}

}  // namespace bench
