#include "run/exec_watch.hpp"
#include "util/clock.hpp"

#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "util/fd.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

// Linux 6.15's PIDFD_GET_INFO (linux/pidfd.h), which Debian 12's headers predate. The kernel
// takes the size from the command: version 0 of the structure is 64 bytes.
namespace {
struct PidfdInfo {
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  int32_t exit_code;  // a wait status
};
static_assert(sizeof(PidfdInfo) == 64, "PIDFD_INFO_SIZE_VER0");
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);
constexpr uint64_t kPidfdInfoExit = 1ULL << 3;
}  // namespace

namespace run {
namespace {

long long usec(const struct timeval& tv) { return (long long)tv.tv_sec * 1000000LL + tv.tv_usec; }

// What edashim sends the watcher through the pipe: its own use just before the exec, or a
// word that the exec failed.
struct PipeMessage {
  char kind;  // 'U': usage, 'X': called off
  OwnUsage usage;
};

int pidfd_open(pid_t pid) { return int(::syscall(SYS_pidfd_open, pid, 0)); }

// The wait status the kernel kept for the ended process, once its parent has reaped it.
std::optional<int> status_from_pidfd(int pidfd) {
  PidfdInfo info{};
  info.mask = kPidfdInfoExit;
  if (::ioctl(pidfd, kPidfdGetInfo, &info) != 0 || !(info.mask & kPidfdInfoExit)) return std::nullopt;
  return int(info.exit_code);
}

// The exit code field (52) of /proc/PID/stat while the process is a zombie its parent has not
// reaped yet; kept only when the pidfd says the same process is still there after the read (a
// reaped pid may be taken by another), and when not 0 (what the field says when we may not read it).
std::optional<int> status_of_zombie(pid_t pid, int pidfd) {
  char path[40];
  std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
  util::Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buf[2048];
  ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
  fd.reset();
  if (n <= 0) return std::nullopt;
  buf[n] = 0;
  char* p = std::strrchr(buf, ')');
  if (!p) return std::nullopt;
  // Fields from 3 on, after the name; the exit code is the last one, field 52.
  int field = 2;
  long value = 0;
  for (char* tok = std::strtok(p + 1, " \n"); tok; tok = std::strtok(nullptr, " \n")) {
    ++field;
    if (field == 3 && *tok != 'Z') return std::nullopt;
    if (field == 52) value = std::strtol(tok, nullptr, 10);
  }
  if (field < 52 || value == 0) return std::nullopt;
  if (::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) != 0) return std::nullopt;
  return int(value);
}

// Until the ended process is reaped by its parent: the pidfd reports POLLHUP then (POLLIN,
// for the exit itself, is not asked for).
bool wait_reaped(int pidfd, int timeout_ms) {
  struct pollfd p = {pidfd, POLLHUP, 0};
  long long until = util::monotonic_ns() + (long long)timeout_ms * 1000000LL;
  for (;;) {
    long long left = (until - util::monotonic_ns()) / 1000000LL;
    int r = ::poll(&p, 1, int(std::max(0LL, left)));
    if (r == 1) return (p.revents & POLLHUP) != 0;
    if (r == 0 || errno != EINTR) return false;
  }
}

// The status of a tool that ended without telling: from the kernel once its parent has reaped it
// (a shell does at once), from its zombie when the parent takes its time, else unknown.
std::optional<int> status_after_end(pid_t pid, int pidfd) {
  if (wait_reaped(pidfd, 1000)) return status_from_pidfd(pidfd);
  if (auto s = status_of_zombie(pid, pidfd)) return s;
  if (wait_reaped(pidfd, 600'000)) return status_from_pidfd(pidfd);
  return std::nullopt;
}

// One notice from the tool's own process (its pid checked by the kernel's credentials).
std::optional<ExitNotice> take_notice(int listen_fd, pid_t tool, util::Fd& conn) {
  conn.reset(::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn) return std::nullopt;
  struct ucred cred {};
  socklen_t len = sizeof cred;
  char buf[512];
  ssize_t n = -1;
  if (::getsockopt(conn.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid == tool)
    n = ::recv(conn.get(), buf, sizeof buf, 0);
  if (n <= 0) {
    conn.reset();
    return std::nullopt;
  }
  return parse_exit_notice(std::string_view(buf, size_t(n)));
}

// Out of the caller's session and groups, deaf to what is meant for the tool.
void detach() {
  ::setsid();
  for (int sig = 1; sig < 32; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP && sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL &&
        sig != SIGCHLD)
      ::signal(sig, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace

std::string exit_var_value(pid_t pid, int lock_fd, unsigned long long lock_dev, unsigned long long lock_ino,
                           const std::string& socket) {
  return std::to_string(pid) + ":" + (lock_fd >= 0 ? std::to_string(lock_fd) : std::string("-")) + ":" +
         std::to_string(lock_dev) + ":" + std::to_string(lock_ino) + ":" + socket;
}

bool exit_socket_fits(const std::string& socket) {
  return !socket.empty() && socket[0] == '/' && socket.size() < sizeof(sockaddr_un::sun_path);
}

std::optional<ExitNotice> parse_exit_notice(std::string_view text) {
  if (text.empty() || text.back() != '\n') return std::nullopt;
  std::vector<long long> v;
  size_t at = 0;
  while (at < text.size() - 1) {
    size_t end = text.find_first_of(" \t\n", at);
    std::string word(text.substr(at, end - at));
    char* stop = nullptr;
    errno = 0;
    long long x = std::strtoll(word.c_str(), &stop, 10);
    if (word.empty() || *stop || errno) return std::nullopt;
    v.push_back(x);
    at = end + 1;
  }
  if (v.size() != 9) return std::nullopt;
  for (size_t i = 1; i < 9; ++i)
    if (i != 7 && v[i] < 0) return std::nullopt;  // VmHWM is -1 when /proc could not say
  ExitNotice n;
  n.wait_status = int(v[0]);
  n.utime_us = v[1];
  n.stime_us = v[2];
  n.cutime_us = v[3];
  n.cstime_us = v[4];
  n.maxrss_kb = long(v[5]);
  n.cmaxrss_kb = long(v[6]);
  n.hwm_kb = long(v[7]);
  n.end_ns = v[8];
  return n;
}

void figures_from_notice(const ExitNotice& n, const OwnUsage& own, Ending& e) {
  e.wait_status = n.wait_status;
  long long user = (n.utime_us - own.utime_us) + (n.cutime_us - own.cutime_us);
  long long sys = (n.stime_us - own.stime_us) + (n.cstime_us - own.cstime_us);
  e.user_s = double(std::max(0LL, user)) / 1e6;
  e.sys_s = double(std::max(0LL, sys)) / 1e6;
  long peak = std::max(n.hwm_kb, n.cmaxrss_kb);
  if (n.maxrss_kb > own.maxrss_kb) peak = std::max(peak, n.maxrss_kb);
  if (peak > 0) e.max_rss_kb = peak;
}

bool pidfd_available() { return bool(util::Fd(pidfd_open(::getpid()))); }

bool InPlace::prepare(const std::string& socket_path) {
  self_ = ::getpid();
  util::Fd pidfd(pidfd_open(self_));  // close-on-exec by itself: the tool never has it
  if (!pidfd) return false;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    int e = errno;
    pidfd.reset();
    errno = e;
    return false;
  }
  pidfd_ = pidfd.release();
  pipe_r_.reset(p[0]);
  pipe_w_.reset(p[1]);
  if (!exit_socket_fits(socket_path)) return true;
  util::Fd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  struct sockaddr_un at {};
  at.sun_family = AF_UNIX;
  std::memcpy(at.sun_path, socket_path.c_str(), socket_path.size() + 1);
  if (fd && ::bind(fd.get(), reinterpret_cast<sockaddr*>(&at), sizeof at) == 0 && ::listen(fd.get(), 4) == 0) {
    listen_fd_ = fd.release();
    socket_path_ = socket_path;
  }
  return true;
}

// The watcher shares edashim's memory until the exec (clone with CLONE_VM): no copy of a planned
// edashim's pages, whose faults and TLB flushes in the tool's process cost more than the rest of
// a run (a fork here took ~5 ms of CPU of a 13 ms run). It writes none of that memory before the
// exec has taken edashim's process to another image: it waits for the close-on-exec pipe's end
// on its own stack, with system calls only and every signal blocked (the handlers edashim set
// up are not its own). From then on the memory is the watcher's alone, as a fork's copy would
// be, with the plan and the start of the line where edashim left them: what the jobs use must
// outlive the exec call (run_in_place keeps them in its frame).
//
// The code that runs while the memory is shared is not instrumented (a sanitizer build's
// per-thread state, its fake stack frames among them, is edashim's too until the exec), and
// a sanitizer is told of the watcher's own stack only once the memory is its alone: those
// functions are marked [[gnu::no_sanitize(...)]].

namespace {
struct Start {
  InPlace* watch;
  const WatchJobs* jobs;
  int pidfd, listen_fd, pipe_r, keep, keep_too;
  long long start_ns;
  char* stack;      // the watcher's: kWatcherStack bytes
  bool started;     // set by the middle process: the watcher is on its way
};

constexpr size_t kWatcherStack = size_t(8) << 20;

// What the pipe told before it ended.
struct BeforeExec {
  bool have_usage = false;
  OwnUsage usage;
};

// Until the exec: out of the caller's session, named edashim (`pgrep -x yosys` finds the tool
// alone), every descriptor closed but its own (a caller reading the tool's output to its end
// must not wait for the watcher), the standard ones on /dev/null (a file the watcher opens later
// never takes their numbers, where a runtime's warning would land), then the pipe read to its
// end. Returns false when edashim called it off (the exec failed).
[[gnu::no_sanitize("address", "undefined"), gnu::noinline]] bool until_exec(const Start& s, BeforeExec& out) {
  ::prctl(PR_SET_NAME, "edashim");
  ::setsid();
  int keep[5] = {s.pidfd, s.listen_fd, s.pipe_r, s.keep, s.keep_too};
  for (int i = 1; i < 5; ++i)
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; --j) {
      int t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  unsigned from = 0;
  for (int fd : keep) {
    if (fd < 0) continue;
    if (unsigned(fd) > from) ::syscall(SYS_close_range, from, unsigned(fd) - 1, 0u);
    from = unsigned(fd) + 1;
  }
  ::syscall(SYS_close_range, from, ~0u, 0u);
  // A plain descriptor and ::close: until the exec this runs in edashim's memory, system calls
  // only (an Fd's destructor here would be edashim's code on edashim's objects).
  for (int fd; (fd = ::open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0;)
    if (fd > 2) {
      ::close(fd);
      break;
    }
  for (;;) {
    alignas(PipeMessage) char m[sizeof(PipeMessage)];  // raw: no constructor of instrumented code
    size_t got = 0;
    while (got < sizeof m) {
      ssize_t r = ::read(s.pipe_r, m + got, sizeof m - got);
      if (r <= 0) return true;  // exec'd (close-on-exec), or edashim died; no signal can interrupt
      got += size_t(r);
    }
    if (m[offsetof(PipeMessage, kind)] == 'X') return false;
    out.have_usage = true;
    std::memcpy(&out.usage, m + offsetof(PipeMessage, usage), sizeof out.usage);
  }
}

[[gnu::no_sanitize("address", "undefined"), gnu::noinline]] int watcher_main(void* arg) {
  Start s = *static_cast<Start*>(arg);
  BeforeExec before;
  if (!until_exec(s, before)) ::syscall(SYS_exit_group, 0);
#if defined(__SANITIZE_ADDRESS__)
  // The memory is the watcher's now: its stack is the one it runs on. edashim's fake stack
  // (detect_stack_use_after_return) is set aside, never destroyed: the plan and the jobs the
  // watcher is about to read may live in its frames.
  void* edashims_fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&edashims_fake_stack, s.stack, kWatcherStack);
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
  std::optional<OwnUsage> own;
  if (before.have_usage) own = before.usage;
  s.watch->watch(*s.jobs, own, s.start_ns);
}

// The middle process: runs while edashim waits (CLONE_VFORK), starts the watcher and returns
// (the clone's end is its exit); the watcher is then left to init or a subreaper, and the tool
// never has a child of edashim's. What the watcher needs goes to the top of its own stack:
// edashim's frame is gone by the time the watcher reads it.
[[gnu::no_sanitize("address", "undefined"), gnu::noinline]] int middle_main(void* arg) {
  auto* s = static_cast<Start*>(arg);
  char* top = s->stack + kWatcherStack - ((sizeof(Start) + 63) & ~size_t(63));
  auto* copy = new (top) Start(*s);
  s->started = ::clone(watcher_main, top, CLONE_VM | SIGCHLD, copy) > 0;
  return 0;
}
}  // namespace

int InPlace::start(const WatchJobs& jobs, int keep, long long start_ns, int keep_too) {
  void* stack = ::mmap(nullptr, kWatcherStack, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return errno;
  Start s{this, &jobs, pidfd_, listen_fd_, pipe_r_.get(), keep, keep_too, start_ns, static_cast<char*>(stack), false};
  alignas(16) char middle_stack[16384];
  // Both start with every signal blocked; edashim's own mask comes back at once.
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &old);
  pid_t middle = ::clone(middle_main, middle_stack + sizeof middle_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &s);
  int err = middle < 0 ? errno : 0;
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (middle < 0) {
    ::munmap(stack, kWatcherStack);
    return err;
  }
  // The middle has ended (CLONE_VFORK); reaped here, unless a SIGCHLD ignored by the caller and
  // inherited had the kernel do it. Whether it started the watcher is in `s`, not its status.
  int status = 0;
  while (::waitpid(middle, &status, 0) < 0 && errno == EINTR) {
  }
  // The watcher has its own descriptor, by the number in its copy of `s` (made before the middle
  // ended): the member is not read again.
  pipe_r_.reset();
  // A watcher that did not start never touches its stack; one that did keeps it (this
  // process's view of it goes with the exec).
  if (!s.started) {
    ::munmap(stack, kWatcherStack);
    return EAGAIN;
  }
  return 0;
}

void InPlace::watch(const WatchJobs& jobs, std::optional<OwnUsage> own, long long start_ns) {
  detach();
  if (jobs.first) jobs.first();
  Waited w = wait_for_end();
  w.own = own;
  Ending e = ending(w, start_ns);
  std::string say = jobs.finish ? jobs.finish(e) : std::string();
  if (w.conn) {
    std::string answer = say.empty() ? std::string("ok") : say;
    ::send(w.conn.get(), answer.data(), answer.size(), MSG_NOSIGNAL);
    // Out of the tool's way: a woken task does not take the CPU from the one that woke it, and
    // the tool's exit (the caller's wait) would come after the rest of this and the watcher's
    // own exit. Bounded: the tool is in its exit handlers, but one of them could block.
    struct pollfd q = {pidfd_, POLLIN, 0};
    while (::poll(&q, 1, 1000) < 0 && errno == EINTR) {
    }
    w.conn.reset();
  }
  if (!socket_path_.empty()) ::unlink(socket_path_.c_str());
  if (jobs.after) jobs.after();
  ::_exit(0);
}

// Waits for the end: the notice, or the tool's end.
InPlace::Waited InPlace::wait_for_end() {
  Waited w;
  for (;;) {
    struct pollfd p[2] = {{pidfd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      ::_exit(1);
    }
    if (p[1].revents & POLLIN) {
      w.notice = take_notice(listen_fd_, self_, w.conn);
      if (w.notice) break;
      continue;
    }
    if (p[0].revents) {
      w.ended_first = true;
      break;
    }
  }
  w.end_ns = util::monotonic_ns();
  if (!w.notice && listen_fd_ >= 0) {
    // A notice sent just before a death (killed while waiting for the answer) still has the
    // figures; the status is the kernel's.
    struct pollfd q = {listen_fd_, POLLIN, 0};
    if (::poll(&q, 1, 0) == 1) w.notice = take_notice(listen_fd_, self_, w.conn);
  }
  // A tool that told waits for the answer: one already gone was killed meanwhile.
  struct pollfd q = {pidfd_, POLLIN, 0};
  if (w.notice && !w.ended_first && ::poll(&q, 1, 0) == 1) w.ended_first = true;
  return w;
}

Ending InPlace::ending(const Waited& w, long long start_ns) {
  Ending e;
  e.told = w.notice && w.conn && !w.ended_first;
  // The end as the tool told it; else when the watcher saw it, which is later by what the watcher
  // was busy with (the start of the line) when the tool ended sooner than that.
  long long end = e.told && w.notice->end_ns > start_ns ? w.notice->end_ns : w.end_ns;
  e.wall_s = double(end - start_ns) / 1e9;
  if (w.notice && w.own) figures_from_notice(*w.notice, *w.own, e);
  // Ended without telling (a signal, a static image, exit_group called directly): the status
  // from the kernel, or unknown.
  if (!e.told)
    if (auto status = status_after_end(self_, pidfd_)) e.wait_status = status;
  return e;
}

void InPlace::before_exec() {
  PipeMessage m{};
  m.kind = 'U';
  struct rusage self {}, children {};
  ::getrusage(RUSAGE_SELF, &self);
  ::getrusage(RUSAGE_CHILDREN, &children);
  m.usage = {usec(self.ru_utime), usec(self.ru_stime), usec(children.ru_utime), usec(children.ru_stime), self.ru_maxrss};
  if (::write(pipe_w_.get(), &m, sizeof m) != ssize_t(sizeof m)) {
  }
  // By hand, the members left as they are: the watcher, sharing this memory until the exec,
  // goes on with its own copies by these numbers.
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::close(pidfd_);
}

void InPlace::call_off() {
  PipeMessage m{};
  m.kind = 'X';
  if (::write(pipe_w_.get(), &m, sizeof m) != ssize_t(sizeof m)) {
  }
  pipe_w_.reset();
}

}  // namespace run
