#include "run/launch.hpp"

#include "run/relay.hpp"

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

#include "run/death.hpp"
#include "run/exec_rules.hpp"

namespace run {
namespace {

long long now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
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
  // Without a terminal the tool gets a process group of its own, so that a signal sent to our
  // group (timeout(1), a scheduler, `kill 0` in a script) arrives once, through us. The price:
  // a SIGSTOP to our group stops edashim, not the tool (README, Transparency). With a
  // terminal it stays in ours so that the terminal, job control and reads from the tty work
  // exactly as without edashim.
  volatile bool shared_group = has_controlling_terminal();

  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  relay::install(shared_group);
  int handled_count = 0;
  const int* handled = relay::handled(handled_count);

  pid_t parent = ::getpid();
  volatile int exec_errno = 0;
  out.start_time = epoch_seconds();
  long long t0 = now_ns();
  // vfork: the child borrows our memory until exec, which keeps the launch cost in microseconds.
  pid_t pid = vfork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (!shared_group) ::setpgid(0, 0);
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
    int status = 0;
    for (;;) {
      if (::wait4(pid, &status, WUNTRACED, &out.usage) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      // A parent waiting with WUNTRACED must see its child stop when the tool stops.
      if (WIFSTOPPED(status)) {
        relay::follow_stop(pid, WSTOPSIG(status));
        continue;
      }
      break;
    }
    out.wall_seconds = double(now_ns() - t0) / 1e9;
    out.status = status;
    out.exec_errno = exec_errno;
    out.started = exec_errno == 0;
  }
  // The handlers stay: with no child they drop what arrives while the log line is written
  // (a few hundred microseconds), and edashim then ends with the tool's status. Restoring
  // them would be a system call per signal on every run; launch runs once per process.
  relay::set_tool(0);
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
