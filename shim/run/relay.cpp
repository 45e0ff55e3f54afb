#include "run/relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "util/fd.hpp"

namespace run::relay {
namespace {

volatile pid_t g_tool = 0;
volatile pid_t g_self = 0;
volatile sig_atomic_t g_shared_group = 0;
volatile pid_t g_caller_group = 0;
volatile int g_terminal = -1;
volatile sig_atomic_t g_tool_foreground = 0;  // the tool's group has the terminal (handed over)
volatile sig_atomic_t g_hung_up = 0;          // the terminal's SIGHUP reached the shared group

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
  util::Fd fd(::open(path, O_RDONLY | O_CLOEXEC));  // async-signal-safe: its close is all it does
  if (!fd) return false;
  char buf[512];
  ssize_t got = ::read(fd.get(), buf, sizeof buf - 1);
  fd.reset();
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

// The number on line `field` of /proc/PID/status, in `base` (16 for the signal masks "SigIgn:",
// "ShdPnd:"; 10 for the counts). 0 when unknown. Async-signal-safe.
unsigned long long status_value(pid_t pid, const char* field, unsigned base) {
  char path[40] = "/proc/";
  char digits[12];
  int n = 0;
  for (unsigned v = unsigned(pid); v; v /= 10) digits[n++] = char('0' + v % 10);
  int at = 6;
  while (n) path[at++] = digits[--n];
  for (const char* tail = "/status"; *tail;) path[at++] = *tail++;
  path[at] = 0;
  util::Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return 0;
  char buf[2048];
  ssize_t got = ::read(fd.get(), buf, sizeof buf - 1);
  fd.reset();
  if (got <= 0) return 0;
  buf[got] = 0;
  int len = 0;
  while (field[len]) ++len;
  for (char* line = buf; *line;) {
    bool match = true;
    for (int i = 0; i < len && match; ++i) match = line[i] == field[i];
    if (match) {
      unsigned long long mask = 0;
      const char* p = line + len;
      while (*p == ' ' || *p == '\t') ++p;
      for (;; ++p) {
        int digit = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (digit < 0 || unsigned(digit) >= base) break;
        mask = mask * base + unsigned(digit);
      }
      return mask;
    }
    while (*line && *line != '\n') ++line;
    if (*line) ++line;
  }
  return 0;
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

// timeout(1) sends to its child's pid, then to its own group (kill(0)) after setting the signal
// to SIG_IGN for itself; a script's `trap '' TERM; kill $pid; kill 0` does the same. When edashim
// stepped aside, that group holds the tool, which got the group's copy directly; without
// edashim the two copies merge into one, so the pid's copy is not relayed. A sender in the
// tool's group that does not ignore the signal sent it to edashim's pid alone (`kill $!`).
// Asked once the sender has finished sending (let_sender_finish). Async-signal-safe.
bool sent_to_the_tools_group_too(pid_t sender, pid_t tool_group, int sig) {
  if (g_caller_group <= 0 || tool_group != g_caller_group || ::getpgid(sender) != tool_group) return false;
  return status_value(sender, "SigIgn:", 16) >> (sig - 1) & 1;
}

// A sender outside the tool's group that sent to edashim's pid may have sent to the tool's
// group too (`kill PID; kill -- -PGID`, timeout(1)'s pair from outside): that copy reached the
// tool directly. While it is still pending there, the relay would merge with it: not sent.
// (Whether the tool has taken it already cannot be told from here: its voluntary context
// switches say it woke, but so does a tool that sleeps in short steps, whose `kill PID` from a
// busy sender was then lost every time; so such a pair may reach the tool twice.)
bool group_copy_pending_in_tool(pid_t tool, int sig) {
  return status_value(tool, "ShdPnd:", 16) >> (sig - 1) & 1;
}

// Closing a terminal sends SIGHUP to its foreground group, and the shell then sends its own
// to each job's group: directly the tool takes the two as one when the second comes while the
// first is pending. The shell's copy to edashim's group, relayed a hop later, would mostly be
// a second. So when the tool's group had the terminal, a SIGHUP from
// outside after the hangup is not relayed: the tool got the terminal's. Async-signal-safe.
bool tool_got_the_hangup(const Delivery& d) {
  if (d.sig != SIGHUP || d.from_tool_side) return false;
  if (d.shared_group) {
    if (d.code == SI_KERNEL) g_hung_up = 1;
    return g_hung_up;
  }
  int terminal = g_terminal;
  if (terminal < 0 || !g_tool_foreground) return false;
  struct pollfd p = {terminal, 0, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
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
  // Asked at each delivery, not remembered from the start: a tool in a terminal job that moved
  // itself to a group of its own (setpgid, setsid) no longer gets the terminal's signals.
  pid_t tool_group = d.tool_running ? ::getpgid(tool) : -1;
  d.shared_group = d.tool_running && tool_group == ::getpgrp();
  bool sent = info->si_code <= 0 && info->si_pid > 0;
  d.from_self = sent && info->si_pid == g_self;
  if (d.tool_running && sent && !d.from_self) {
    d.from_tool_side = from_tool_side(info->si_pid, tool);
    if (d.from_tool_side) d.sender_in_our_group = ::getpgid(info->si_pid) == ::getpgrp();
  }
  bool hangup_had = tool_got_the_hangup(d);  // first: it notes the terminal's own SIGHUP
  Route where = route(d);
  if (where == Route::to_tool && hangup_had) where = Route::drop;
  switch (where) {
    case Route::to_tool:
      if (sig < SIGRTMIN && sent && g_caller_group > 0) {
        // Stepped aside: only the pid's copy of a pair comes here. From a sender in the tool's
        // group it waits for the sender to finish, to ask its SIG_IGN; from outside it goes at
        // once, to be pending in the tool when the group's copy arrives, and merge there.
        if (::getpgid(info->si_pid) == tool_group) {
          let_sender_finish(info->si_pid);
          if (sent_to_the_tools_group_too(info->si_pid, tool_group, sig)) break;
        } else if (group_copy_pending_in_tool(tool, sig)) {
          break;
        }
      } else if (sig < SIGRTMIN && sent) {
        let_sender_finish(info->si_pid);
      }
      // The terminal's signal for a tool that now leads a group of its own: directly the
      // terminal would have reached its whole group (the children it meant to killpg).
      if (d.code == SI_KERNEL && tool_group == tool && ::kill(-tool, sig) == 0) break;
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
  // (`kill -USR1 $PPID` killed the tool). A sender in our own group may have sent its
  // `kill 0` to the group (as sudo reasons): that reached everyone it reaches directly, and
  // passed up it would reach a caller outside the group, such as an interactive shell, which
  // it never reaches directly. So it stops here.
  if (d.from_tool_side) return d.sender_in_our_group ? Route::drop : Route::to_parent;
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

void set_caller_group(pid_t group) { g_caller_group = group; }

void set_terminal(int fd, bool tool_foreground) {
  g_terminal = fd;
  g_tool_foreground = tool_foreground;
  g_hung_up = 0;
}

void follow_stop(pid_t tool, int sig) {
  sigset_t all, old, one;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  sigemptyset(&one);
  sigaddset(&one, sig);
  struct sigaction dfl {}, mine {};
  dfl.sa_handler = SIG_DFL;
  if (sig != SIGSTOP) sigaction(sig, &dfl, &mine);
  // Stopped out of the caller's group, edashim would miss the SIGCONT that `fg` sends to the
  // job's group and stay stopped with the tool running on: it stops in that group instead.
  pid_t caller_group = g_caller_group;
  if (caller_group > 0) ::setpgid(0, caller_group);
  // The same stop signal, at its default action: the parent's waitpid(WUNTRACED) sees
  // WSTOPSIG as it would have seen it for the tool. SIGSTOP stops at once; the others stop
  // once unblocked, or are discarded by the kernel when our process group is orphaned, as
  // they would have been for the tool in our place.
  ::kill(g_self, sig);
  sigprocmask(SIG_UNBLOCK, &one, nullptr);
  sigprocmask(SIG_BLOCK, &one, nullptr);
  if (sig != SIGSTOP) sigaction(sig, &mine, nullptr);
  if (caller_group > 0) ::setpgid(0, 0);
  // Continued in the foreground (`fg`: the shell gave the terminal to edashim's job): the tool
  // had it before it stopped and gets it back before it goes on, as its shell would give it.
  int terminal = g_terminal;
  bool tool_leads = ::getpgid(tool) == tool;
  g_tool_foreground = 0;  // stopped: the shell took the terminal back
  if (terminal >= 0 && tool_leads && ::tcgetpgrp(terminal) == ::getpgrp()) {
    ::tcsetpgrp(terminal, tool);
    g_tool_foreground = 1;
  }
  // Continued (or never stopped): a SIGCONT that woke us is pending and is handled as any
  // other once unblocked (relayed to the tool, or dropped when the group's SIGCONT woke the
  // tool too). A tool still stopped after that must go on as edashim does: edashim was woken
  // by SIGCONT to its pid alone, or its stop was discarded.
  sigprocmask(SIG_SETMASK, &old, nullptr);
  // A terminal's stop reached the tool's whole group, which its shell would continue whole.
  if (is_stopped(tool)) ::kill(terminal >= 0 && tool_leads ? -tool : tool, SIGCONT);
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
