#include "run/launch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "run/exec_rules.hpp"

namespace run {
namespace {

volatile pid_t g_child = 0;
volatile pid_t g_self = 0;
volatile sig_atomic_t g_shared_group = 0;  // the tool is in our process group (a terminal job)
volatile sig_atomic_t g_last_sig = 0;
volatile pid_t g_last_sender = 0;
volatile long long g_last_ns = 0;

long long now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// Signals relayed to the tool: every catchable one (a signal edashim let through to its
// default action would kill or stop edashim instead of reaching the tool, e.g. `kill -PIPE`,
// `kill -TSTP`, `kill -RTMIN`), except 32 and 33, which glibc keeps for itself.
int g_relayed[_NSIG];
int g_relayed_count = 0;

void list_relayed() {
  if (g_relayed_count) return;
  for (int sig = 1; sig <= SIGRTMAX; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP && (sig < 32 || sig >= SIGRTMIN)) g_relayed[g_relayed_count++] = sig;
}

bool is_fault(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP || sig == SIGSYS;
}

// Stops edashim the way the signal's default action would (a terminal's Ctrl-Z, or a stop
// signal sent to us alone while we share the tool's terminal job): the shell then sees the
// job stop, and its SIGCONT on `fg` wakes us and the tool together. Async-signal-safe.
void stop_self(int sig) {
  struct sigaction dfl {}, mine;
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, &mine);
  ::kill(g_self, sig);  // pending until unblocked: the handler runs with every signal blocked
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);  // stops here (the kernel ignores it in an orphaned group)
  sigprocmask(SIG_BLOCK, &set, nullptr);
  sigaction(sig, &mine, nullptr);
}

// Dispositions the tool must start with ignored (exec keeps SIG_IGN, but resets our handler).
bool g_ignored[_NSIG];

void relay(int sig, siginfo_t* info, void*) {
  int saved = errno;
  // In the vfork child between unblocking and exec (it inherits our handlers, and resetting
  // them all there would cost a system call per signal on every launch): the signal is the
  // tool's own, so let its default action (or inherited SIG_IGN) happen once we return.
  if (::getpid() != g_self) {
    ::signal(sig, g_ignored[sig] ? SIG_IGN : SIG_DFL);
    ::kill(::getpid(), sig);
    errno = saved;
    return;
  }
  // Not messages for the tool: a real fault in edashim (die of it: with SIG_DFL the faulting
  // instruction runs again and the default action follows), SIGCHLD/SIGIO about our own
  // child and descriptors, and signals we raised ourselves (a write to a closed pipe).
  if (is_fault(sig) && info->si_code > 0) {
    ::signal(sig, SIG_DFL);
    errno = saved;
    return;
  }
  if (((sig == SIGCHLD || sig == SIGIO) && info->si_code > 0) || (info->si_code <= 0 && info->si_pid == g_self)) {
    errno = saved;
    return;
  }
  pid_t child = g_child;
  if (child > 0) {
    bool from_group = false;
    if (g_shared_group) {
      // A terminal's signals (SI_KERNEL) went to the whole foreground group, tool included.
      // SIGWINCH and SIGCONT also reach it through the group when a shell sends them.
      from_group = info->si_code == SI_KERNEL || sig == SIGWINCH || sig == SIGCONT;
    }
    // timeout(1) and some schedulers send to the pid and then to the group: relay once.
    long long t = now_ns();
    bool duplicate = sig == g_last_sig && info->si_pid == g_last_sender && t - g_last_ns < 50'000'000LL;
    g_last_sig = sig;
    g_last_sender = info->si_pid;
    g_last_ns = t;
    if (!from_group && !duplicate) ::kill(child, sig);
    if (g_shared_group && (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)) stop_self(sig);
  }
  errno = saved;
}

double epoch_seconds() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

bool has_controlling_terminal() {
  int fd = ::open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace

Outcome launch(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::function<void(const Outcome& so_far)>& while_running) {
  Outcome out;
  auto c_argv = c_strings(argv);
  auto c_env = c_strings(env);
  auto sh_argv = shell_argv(path, argv);  // made here: the vfork child must not allocate
  auto c_sh_argv = c_strings(sh_argv);
  // Without a terminal the tool gets a process group of its own, so a signal sent to our
  // group (timeout(1), a scheduler) arrives once, through us. With one, it stays in ours so
  // that the terminal, job control and reads from the tty work exactly as without edashim.
  g_shared_group = has_controlling_terminal();

  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  list_relayed();
  g_self = ::getpid();
  struct sigaction sa {};
  sa.sa_sigaction = relay;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);
  // Relayed even when ignored here: a signal ignored by inheritance (nohup's SIGHUP, SIGINT
  // for a `&` job of a script) stays ignored for the tool, which is free to catch it as it
  // would without edashim; a relay dropped here would then be a signal lost.
  for (int i = 0; i < g_relayed_count; ++i) {
    int sig = g_relayed[i];
    struct sigaction previous;
    g_ignored[sig] = sigaction(sig, &sa, &previous) == 0 && previous.sa_handler == SIG_IGN;
  }

  pid_t parent = g_self;
  volatile int exec_errno = 0;
  out.start_time = epoch_seconds();
  long long t0 = now_ns();
  // vfork: the child borrows our memory until exec, which keeps the launch cost in microseconds.
  pid_t pid = vfork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (!g_shared_group) ::setpgid(0, 0);
    // exec resets handled signals to SIG_DFL by itself; only inherited SIG_IGN needs restoring.
    for (int i = 0; i < g_relayed_count; ++i)
      if (g_ignored[g_relayed[i]]) ::signal(g_relayed[i], SIG_IGN);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    exec_like_execvp(path.c_str(), c_argv.data(), c_sh_argv.data(), c_env.data());
    exec_errno = errno;
    ::_exit(127);
  }
  if (pid < 0) {
    out.exec_errno = errno;
  } else {
    g_child = pid;
    out.pid = pid;
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (pid > 0) {
    if (while_running) while_running(out);
    int status = 0;
    while (::wait4(pid, &status, 0, &out.usage) < 0 && errno == EINTR) {
    }
    out.wall_seconds = double(now_ns() - t0) / 1e9;
    out.status = status;
    out.exec_errno = exec_errno;
    out.started = exec_errno == 0;
  }
  // The handlers stay: with no child they drop what arrives while the log line is written
  // (a few hundred microseconds), and edashim then ends with the tool's status. Restoring
  // them would be a system call per signal on every run; launch runs once per process.
  g_child = 0;
  return out;
}

void exec_in_place(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>* env) {
  auto c_argv = c_strings(argv);
  auto sh_argv = shell_argv(path, argv);
  auto c_sh_argv = c_strings(sh_argv);
  auto c_env = env ? c_strings(*env) : std::vector<char*>();
  exec_like_execvp(path.c_str(), c_argv.data(), c_sh_argv.data(), env ? c_env.data() : environ);
  int e = errno;
  std::fprintf(stderr, "%s: %s: %s\n", argv.empty() ? "edashim" : argv[0].c_str(), path.c_str(), std::strerror(e));
  ::_exit(e == ENOENT ? 127 : 126);
}

void restore_signal_dispositions() {
  for (int i = 0; i < g_relayed_count; ++i) ::signal(g_relayed[i], g_ignored[g_relayed[i]] ? SIG_IGN : SIG_DFL);
}

int shell_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void exit_like(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    // Die of the same signal so that a shell sees 128+N and make sees a signal, but leave no
    // core file of edashim's own behind.
    struct rlimit none = {0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
    ::signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::kill(::getpid(), sig);
    ::_exit(128 + sig);  // only for signals whose default action does not end the process
  }
  std::fflush(stderr);
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

}  // namespace run
