#include "run/launch.hpp"
#include "util/clock.hpp"

#include "run/relay.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <utility>

#include "run/death.hpp"
#include "run/exec_rules.hpp"
#include "util/fd.hpp"

namespace run {
namespace {

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

bool is_pipe(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

// Where the tool stands (see choose_arrangement()).
struct Arrangement {
  bool step_aside = false;  // edashim leaves the caller's group to the tool
  bool own_group = false;   // the tool leads a group of its own
  util::Fd terminal;        // the controlling terminal, when the tool's group is to be its foreground
  bool foreground = false;  // now (a job started in the background gets the terminal at `fg`)
};

// Where the tool stands is chosen by where it would stand without edashim:
// - edashim is not its group's leader (a script, make, timeout(1), a pipeline): the caller
//   put the tool into its own group, so the tool stays there and edashim steps aside into a
//   group of its own. Group signals (timeout's kill(0), a scheduler's killpg, `kill 0`) reach
//   the tool and its children directly, and never edashim, which has none to relay; the
//   tool's kill(0) reaches exactly whom it reaches directly; setsid() succeeds as directly.
//   Measured against the alternatives: the tool in a group of its own (what edashim did before)
//   orphaned the tool's children on a group signal and hid the tool's kill(0) from its
//   caller; all three in one group (sudo's arrangement) makes every group signal reach
//   edashim too, where it cannot be told from `kill $!` (siginfo says neither), so one of
//   the two is delivered twice or lost.
// - edashim leads its group (setsid, a caller that made a group for it, an interactive
//   shell's job): directly the tool would lead it, so the tool gets a group of its own;
//   edashim relays what its group is sent. In a foreground terminal job the tool's group
//   becomes the terminal's foreground (as a shell does for its jobs): Ctrl-C, Ctrl-Z and tty
//   reads are the tool's, setsid() fails as directly, and a stop of the tool stops edashim
//   for the shell; edashim gives the terminal back to the tool when the shell's `fg` wakes it.
// - edashim leads a pipeline in a terminal (a pipe on stdin or stdout): the tool shares the
//   job's group, so that the pipeline's other members get the terminal's signals with it.
Arrangement choose_arrangement() {
  Arrangement a;
  if (::getpgrp() != ::getpid()) {
    a.step_aside = true;
    return a;
  }
  util::Fd tty(::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!tty) {
    a.own_group = true;
    return a;
  }
  // A terminal job of edashim alone: directly the tool would lead it. With a pipe on stdin or
  // stdout edashim leads a pipeline whose other members are in its group; they must go on
  // getting the terminal's signals with the tool, so the tool shares that group instead.
  if (is_pipe(STDIN_FILENO) || is_pipe(STDOUT_FILENO)) return a;
  a.own_group = true;
  a.foreground = ::tcgetpgrp(tty.get()) == ::getpgrp();
  a.terminal = std::move(tty);
  return a;
}

char* g_arguments = nullptr;
size_t g_arguments_size = 0;

}  // namespace

// While the tool runs, edashim's process must not answer to the tool's name: pgrep
// -x, killall and pkill read the kernel's name (comm), pidof also argv[0] in /proc/PID/cmdline;
// a tool's single-instance check by name counts processes. The name becomes "edashim" in both.
// The tool's arguments stay in the command line for ps: `pgrep -f` on them still matches
// edashim (README, Transparency). Done in place, as setproctitle(3) does; the strings are
// main's, copied into the invocation before.
void take_own_name(const std::vector<std::string>& argv) {
  ::prctl(PR_SET_NAME, "edashim");
  if (!g_arguments || !g_arguments_size) return;
  std::string area = renamed_arguments(argv, g_arguments_size);
  std::memcpy(g_arguments, area.data(), area.size());
}


std::string read_text(const std::string& path) {
  std::string text;
  util::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd.get(), buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  return text;
}

std::vector<std::string> nul_separated(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\0', at);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

Watcher watcher() {
  Watcher w;
  std::string status = read_text("/proc/self/status");
  size_t at = status.find("TracerPid:");
  long tracer = at == std::string::npos ? 0 : std::strtol(status.c_str() + at + 10, nullptr, 10);
  if (tracer > 0) {
    std::string name = read_text("/proc/" + std::to_string(tracer) + "/comm");
    while (!name.empty() && name.back() == '\n') name.pop_back();
    w.who = (name.empty() ? std::string("a tracer") : name) + " (pid " + std::to_string(tracer) + ")";
    return w;
  }
  // Valgrind puts its vgpreload libraries into its client's LD_PRELOAD, a static client's too
  // (and takes them out again when the client execs a program it does not follow), so the
  // environment says it without reading /proc/self/maps on every run.
  const char* preload = std::getenv("LD_PRELOAD");
  if (!preload || !std::strstr(preload, "vgpreload")) return w;
  w.who = "valgrind";
  w.valgrind = valgrind_prefix(nul_separated(read_text("/proc/self/task/" + std::to_string(::getpid()) + "/cmdline")));
  return w;
}

std::vector<std::string> valgrind_prefix(const std::vector<std::string>& real_cmdline) {
  std::vector<std::string> out;
  for (size_t i = 0; i < real_cmdline.size(); ++i) {
    if (i > 0 && (real_cmdline[i].empty() || real_cmdline[i][0] != '-')) return out;
    out.push_back(real_cmdline[i]);
  }
  return {};  // no client found: not a valgrind command line
}

void keep_argument_area(int argc, char** argv) {
  if (argc < 1 || !argv[0]) return;
  char* end = argv[0];
  for (int i = 0; i < argc; ++i) {
    if (argv[i] != end) return;  // not contiguous (a caller that built argv itself): leave it
    end += std::strlen(argv[i]) + 1;
  }
  g_arguments = argv[0];
  g_arguments_size = size_t(end - argv[0]);
}

std::string renamed_arguments(const std::vector<std::string>& argv, size_t size) {
  // The tool's arguments stay where they are (ps and `pgrep -f` users look for them); argv[0]'s
  // place takes "edashim", cut to its length when it is shorter ("yosys" -> "edash"), and
  // pads a longer one with NULs, which ps shows as spaces.
  size_t first = argv.empty() ? size : std::min(size, argv[0].size() + 1);
  std::string area(size, '\0');
  std::string name = "edashim";
  std::memcpy(area.data(), name.data(), std::min(name.size(), first ? first - 1 : 0));
  size_t at = first;
  for (size_t i = 1; i < argv.size() && at < size; ++i) {
    size_t n = std::min(argv[i].size(), size - at - 1);
    std::memcpy(area.data() + at, argv[i].data(), n);
    at += argv[i].size() + 1;
  }
  if (size) area[size - 1] = '\0';
  return area;
}

namespace {

// The tool's status once it has ended. A parent waiting with WUNTRACED must see its child stop
// when the tool stops: each stop is followed (relay::follow_stop) and the wait goes on.
int wait_for_tool(pid_t pid, struct rusage& usage) {
  int status = 0;
  for (;;) {
    if (::wait4(pid, &status, WUNTRACED, &usage) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (!WIFSTOPPED(status)) break;
    relay::follow_stop(pid, WSTOPSIG(status));
  }
  return status;
}

// Once the tool has ended: edashim back in the caller's group (`caller_group`, 0 when it never
// left) for what it writes after the tool (a terminal with `stty tostop` stops a background
// group's writes) and for the caller's group signals; the terminal back to edashim's job for
// what it writes last (the shell takes it then).
void take_back_caller_state(pid_t tool, pid_t caller_group, int terminal, const sigset_t& old) {
  if (caller_group > 0) ::setpgid(0, caller_group);
  if (terminal < 0) return;
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);
  if (::tcgetpgrp(terminal) == tool) ::tcsetpgrp(terminal, ::getpgrp());
  sigprocmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

Outcome launch(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::function<void(const Outcome& so_far)>& while_running) {
  Outcome out;
  auto c_argv = c_strings(argv);
  auto c_env = c_strings(env);
  auto sh_argv = shell_argv(path, argv);  // made here: the vfork child must not allocate
  auto c_sh_argv = c_strings(sh_argv);
  // Where the tool stands: choose_arrangement().
  pid_t caller_group = ::getpgrp();
  Arrangement arrangement = choose_arrangement();
  volatile bool step_aside = arrangement.step_aside;
  volatile bool own_group = arrangement.own_group;
  // A plain number for the vfork child, which borrows this memory: it may use the terminal but
  // must change no object of ours (arrangement.terminal, the owner, is closed here at the end).
  volatile int terminal = arrangement.terminal.get();
  volatile bool foreground = arrangement.foreground;

  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  // Before the vfork, with every signal blocked: a group signal sent meanwhile is pending
  // here and relayed once the tool runs; the child joins the caller's group at once.
  if (step_aside && ::setpgid(0, 0) != 0) step_aside = false;
  relay::install(!step_aside && !own_group);
  relay::set_caller_group(step_aside ? caller_group : 0);
  relay::set_terminal(terminal, foreground);
  int handled_count = 0;
  const int* handled = relay::handled(handled_count);

  take_own_name(argv);
  pid_t parent = ::getpid();
  volatile int exec_errno = 0;
  out.start_time = util::epoch_seconds();
  long long t0 = util::monotonic_ns();
  // vfork: the child borrows our memory until exec, which keeps the launch cost in microseconds.
  pid_t pid = vfork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (own_group) ::setpgid(0, 0);
    if (step_aside) ::setpgid(0, caller_group);
    if (foreground) ::tcsetpgrp(terminal, ::getpid());  // SIGTTOU is blocked here
    // exec resets handled signals to SIG_DFL by itself; only inherited SIG_IGN needs restoring.
    for (int i = 0; i < handled_count; ++i)
      if (relay::was_ignored(handled[i])) ::signal(handled[i], SIG_IGN);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    exec_like_execvp(path.c_str(), c_argv.data(), c_sh_argv.data(), c_env.data());
    exec_errno = errno;
    ::_exit(127);
  }
  if (pid < 0) {
    out.exec_errno = errno;
  } else {
    relay::set_tool(pid);
    out.pid = pid;
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (pid > 0) {
    if (while_running) while_running(out);
    out.status = wait_for_tool(pid, out.usage);
    out.wall_seconds = double(util::monotonic_ns() - t0) / 1e9;
    take_back_caller_state(pid, step_aside ? caller_group : 0, terminal, old);
    out.exec_errno = exec_errno;
    out.started = exec_errno == 0;
  }
  // The handlers stay: with no child they drop what arrives while the log line is written
  // (a few hundred microseconds), and edashim then ends with the tool's status. Restoring
  // them would be a system call per signal on every run; launch runs once per process.
  relay::set_tool(0);
  relay::set_terminal(-1, false);
  arrangement.terminal.reset();
  return out;
}

int exec_tool(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>* env) {
  auto c_argv = c_strings(argv);
  auto sh_argv = shell_argv(path, argv);
  auto c_sh_argv = c_strings(sh_argv);
  auto c_env = env ? c_strings(*env) : std::vector<char*>();
  exec_like_execvp(path.c_str(), c_argv.data(), c_sh_argv.data(), env ? c_env.data() : environ);
  return errno;
}

void exec_in_place(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>* env) {
  int e = exec_tool(path, argv, env);
  std::fprintf(stderr, "%s: %s: %s\n", argv.empty() ? "edashim" : argv[0].c_str(), path.c_str(), std::strerror(e));
  ::_exit(e == ENOENT ? 127 : 126);
}

void restore_signal_dispositions() {
  int count = 0;
  const int* handled = relay::handled(count);
  for (int i = 0; i < count; ++i) ::signal(handled[i], relay::was_ignored(handled[i]) ? SIG_IGN : SIG_DFL);
}

int shell_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void exit_like(int status) {
  // Die of the same signal so that a shell sees 128+N (and "core dumped") and make sees a
  // signal, without a crash of edashim's own on record.
  if (WIFSIGNALED(status)) {
    std::fflush(stderr);
    die_like(WTERMSIG(status), WCOREDUMP(status));
  }
  std::fflush(stderr);
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

}  // namespace run
