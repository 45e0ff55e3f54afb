#include "run/relay.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace run::relay {
namespace {

volatile pid_t g_tool = 0;
volatile pid_t g_self = 0;
volatile sig_atomic_t g_shared_group = 0;

// Every catchable signal (one edashim let through to its default action would kill or stop
// edashim instead of reaching the tool, e.g. `kill -PIPE`, `kill -TSTP`, `kill -RTMIN`), except
// 32 and 33, which glibc keeps for itself.
int g_handled[_NSIG];
int g_handled_count = 0;
bool g_ignored[_NSIG];  // dispositions the tool must start with (exec keeps SIG_IGN only)

bool is_fault(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP || sig == SIGSYS;
}

// Field 3 (state) and 4 (ppid) of /proc/PID/stat, after the command name, which may hold
// spaces and parentheses: everything up to the last ')'. Async-signal-safe.
bool read_stat(pid_t pid, char& state, pid_t& ppid) {
  char path[32] = "/proc/";
  char digits[12];
  int n = 0;
  for (unsigned v = unsigned(pid); v; v /= 10) digits[n++] = char('0' + v % 10);
  int at = 6;
  while (n) path[at++] = digits[--n];
  const char* tail = "/stat";
  while (*tail) path[at++] = *tail++;
  path[at] = 0;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return false;
  buf[got] = 0;
  char* close_paren = nullptr;
  for (char* p = buf; *p; ++p)
    if (*p == ')') close_paren = p;
  if (!close_paren || close_paren[1] != ' ' || !close_paren[2]) return false;
  state = close_paren[2];
  pid_t value = 0;
  const char* p = close_paren + 3;
  if (*p++ != ' ') return false;
  while (*p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
  ppid = value;
  return true;
}

bool is_stopped(pid_t pid) {
  char state = 0;
  pid_t ppid = 0;
  return read_stat(pid, state, ppid) && state == 'T';
}

// The sender is the tool or one of its descendants. Without a terminal the tool leads a group
// of its own, which its descendants share unless they leave it: one getpgid answers most
// cases; the parent chain answers the rest (a descendant that started its own group).
bool from_tool_side(pid_t sender, pid_t tool) {
  if (sender == tool) return true;
  if (!g_shared_group && ::getpgid(sender) == tool) return true;
  return descends_from(sender, tool);
}

// Sends `sig` on to `target` as it came: a signal queued with a value (sigqueue, SI_QUEUE, and
// the other codes below 0 that carry one) keeps its value and its sender, which the kernel lets
// a process pass on for codes below 0 (rt_sigqueueinfo); anything else goes with kill, as one
// signal from edashim (the kernel forbids forging SI_USER). Real-time signals queue either way:
// each one delivered is one relayed.
void forward(pid_t target, int sig, siginfo_t* info) {
  if (info->si_code < 0 && info->si_code != SI_TKILL) {
    if (::syscall(SYS_rt_sigqueueinfo, target, sig, info) == 0) return;
    if (info->si_code == SI_QUEUE && ::sigqueue(target, sig, info->si_value) == 0) return;
  }
  ::kill(target, sig);
}

void on_signal(int sig, siginfo_t* info, void*);

// A standard signal is one pending signal, however many times it is sent before it is taken:
// the kernel merges copies that arrive while one is pending. timeout(1) and some schedulers
// send to the pid, then to the group, microseconds apart; without edashim both reach the tool
// and it takes them as one. Through edashim the first copy is "pending for the tool" until it
// has been relayed, so a copy of the same signal from the same sender that arrived meanwhile
// (while this handler ran, every signal blocked) is merged with it, as the tool's kernel would
// have merged it. Nothing is merged by time: a repeat sent after the relay is relayed (five
// signals 20 ms apart reach the tool five times). A copy from another sender is its own signal.
void merge_copies(int sig, const siginfo_t* first) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  struct timespec now {};
  siginfo_t again;
  while (::sigtimedwait(&set, &again, &now) == sig) {
    if (again.si_code == first->si_code && again.si_pid == first->si_pid) continue;
    on_signal(sig, &again, nullptr);
    return;
  }
}

// The sender's group copy follows its first within microseconds, but edashim, woken by the
// first, may run before the sender has sent it (on a loaded machine, or a shell between two
// `kill`s). While the sender is still running (state R: it has not gone back to waiting, as
// timeout(1) does once both copies are out), give it the CPU, so that its second copy arrives
// while the first is pending here and is merged. Bounded, for a sender that computes on: a
// busy sender's repeats more than 2 ms apart are each relayed. Async-signal-safe.
void let_sender_finish(pid_t sender) {
  struct timespec start {}, now {};
  ::clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    ::sched_yield();
    char state = 0;
    pid_t ppid = 0;
    if (!read_stat(sender, state, ppid) || state != 'R') return;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed_ns = (now.tv_sec - start.tv_sec) * 1'000'000'000L + (now.tv_nsec - start.tv_nsec);
    if (elapsed_ns > 2'000'000L) return;
  }
}

void on_signal(int sig, siginfo_t* info, void*) {
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
  // A real fault in edashim: die of it (with SIG_DFL the faulting instruction runs again and
  // the default action follows).
  if (is_fault(sig) && info->si_code > 0) {
    ::signal(sig, SIG_DFL);
    errno = saved;
    return;
  }
  pid_t tool = g_tool;
  Delivery d;
  d.sig = sig;
  d.code = info->si_code;
  d.tool_running = tool > 0;
  d.shared_group = g_shared_group;
  bool sent = info->si_code <= 0 && info->si_pid > 0;
  d.from_self = sent && info->si_pid == g_self;
  if (d.tool_running && sent && !d.from_self) {
    d.from_tool_side = from_tool_side(info->si_pid, tool);
    if (d.from_tool_side && d.shared_group) d.parent_in_our_group = ::getpgid(::getppid()) == ::getpgrp();
  }
  switch (route(d)) {
    case Route::to_tool:
      if (sig < SIGRTMIN && sent) let_sender_finish(info->si_pid);
      forward(tool, sig, info);
      if (sig < SIGRTMIN) merge_copies(sig, info);
      break;
    case Route::to_parent: forward(::getppid(), sig, info); break;
    case Route::drop: break;
  }
  errno = saved;
}

}  // namespace

Route route(const Delivery& d) {
  if (!d.tool_running || d.from_self) return Route::drop;
  // About our own child and descriptors, not a message for anyone.
  if (d.code > 0 && (d.sig == SIGCHLD || d.sig == SIGIO)) return Route::drop;
  // In a terminal job the tool got these itself: the terminal's signals (SI_KERNEL) go to the
  // whole foreground group, and a shell sends SIGCONT (fg, bg) and SIGWINCH to the group.
  if (d.shared_group && (d.code == SI_KERNEL || d.sig == SIGWINCH || d.sig == SIGCONT)) return Route::drop;
  // The tool (or a process it started) signalled its parent, as far as it knows: without
  // edashim the caller would get it. Sent back down, it would hit the tool instead
  // (`kill -USR1 $PPID` killed the tool). In a terminal job whose caller shares our group, a
  // signal from the tool's side may be its `kill 0` to the group, which reached the caller
  // already: passing it up would be a second copy, so it stops here.
  if (d.from_tool_side) return d.shared_group && d.parent_in_our_group ? Route::drop : Route::to_parent;
  return Route::to_tool;
}

void install(bool shared_group) {
  g_shared_group = shared_group;
  g_self = ::getpid();
  if (!g_handled_count)
    for (int sig = 1; sig <= SIGRTMAX; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP && (sig < 32 || sig >= SIGRTMIN)) g_handled[g_handled_count++] = sig;
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);
  // Handled even when ignored here: a signal ignored by inheritance (nohup's SIGHUP, SIGINT
  // for a `&` job of a script) stays ignored for the tool, which is free to catch it as it
  // would without edashim; a relay dropped here would then be a signal lost.
  for (int i = 0; i < g_handled_count; ++i) {
    int sig = g_handled[i];
    struct sigaction previous;
    if (sigaction(sig, &sa, &previous) == 0 && previous.sa_sigaction != on_signal)
      g_ignored[sig] = previous.sa_handler == SIG_IGN;
  }
}

bool was_ignored(int sig) { return sig > 0 && sig < _NSIG && g_ignored[sig]; }

const int* handled(int& count) {
  count = g_handled_count;
  return g_handled;
}

void set_tool(pid_t tool) { g_tool = tool; }

void follow_stop(pid_t tool, int sig) {
  sigset_t all, old, one;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  sigemptyset(&one);
  sigaddset(&one, sig);
  struct sigaction dfl {}, mine {};
  dfl.sa_handler = SIG_DFL;
  if (sig != SIGSTOP) sigaction(sig, &dfl, &mine);
  // The same stop signal, at its default action: the parent's waitpid(WUNTRACED) sees
  // WSTOPSIG as it would have seen it for the tool. SIGSTOP stops at once; the others stop
  // once unblocked, or are discarded by the kernel when our process group is orphaned, as
  // they would have been for the tool in our place.
  ::kill(g_self, sig);
  sigprocmask(SIG_UNBLOCK, &one, nullptr);
  sigprocmask(SIG_BLOCK, &one, nullptr);
  if (sig != SIGSTOP) sigaction(sig, &mine, nullptr);
  // Continued (or never stopped): a SIGCONT that woke us is pending and is handled as any
  // other once unblocked (relayed to the tool, or dropped when the group's SIGCONT woke the
  // tool too). A tool still stopped after that must go on as edashim does: edashim was woken
  // by SIGCONT to its pid alone, or its stop was discarded.
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (is_stopped(tool)) ::kill(tool, SIGCONT);
}

bool descends_from(pid_t pid, pid_t ancestor) {
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    if (pid == ancestor) return true;
    char state = 0;
    pid_t ppid = 0;
    if (!read_stat(pid, state, ppid)) return false;
    pid = ppid;
  }
  return false;
}

}  // namespace run::relay
