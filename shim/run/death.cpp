#include "run/death.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "util/fd.hpp"

namespace run {
namespace {

std::string read_small(const char* path) {
  char buf[256];
  util::Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return {};
  ssize_t n = ::read(fd.get(), buf, sizeof buf);
  fd.reset();
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

void write_small(const char* path, const char* text) {
  util::Fd fd(::open(path, O_WRONLY | O_CLOEXEC));
  if (!fd) return;
  ssize_t ignored = ::write(fd.get(), text, std::char_traits<char>::length(text));
  (void)ignored;
}

// A process of its own (out of the caller's group, no descriptors: a caller reading our
// stdout until EOF must not wait for it) that removes `dir` and what the kernel writes there
// once edashim, `parent`, is gone: the core is written before the process exits.
void remove_after_death(pid_t parent, const std::string& dir) {
  pid_t pid = ::fork();
  if (pid != 0) return;
  ::setsid();
  ::syscall(SYS_close_range, 0u, ~0u, 0u);
  int pidfd = int(::syscall(SYS_pidfd_open, parent, 0));
  if (pidfd >= 0) {
    struct pollfd p = {pidfd, POLLIN, 0};
    ::poll(&p, 1, 60'000);
  } else {
    for (int i = 0; i < 60'000 && ::getppid() == parent; ++i) ::usleep(1000);
  }
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ::unlinkat(::dirfd(d), e->d_name, 0);
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
  ::_exit(0);
}

// Sets up a core of edashim that the caller's WCOREDUMP can see and no one keeps: false when
// it cannot be had that way.
bool prepare_private_core() {
  std::string pattern = read_small("/proc/sys/kernel/core_pattern");
  if (!core_lands_in_cwd(pattern)) return false;
  const char* base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string dir = std::string(base) + "/edashim-core-XXXXXX";
  if (!::mkdtemp(dir.data())) return false;
  struct rlimit core {};
  ::getrlimit(RLIMIT_CORE, &core);
  // Registers, the auxiliary vector and the list of mapped files: tens of kilobytes. The
  // kernel sets the core-dump bit only for a core it wrote whole.
  const rlim_t enough = 1 << 20;
  if (core.rlim_max != RLIM_INFINITY && core.rlim_max < enough) {
    ::rmdir(dir.c_str());
    return false;
  }
  if (::chdir(dir.c_str()) != 0) {
    ::rmdir(dir.c_str());
    return false;
  }
  remove_after_death(::getpid(), dir);
  write_small("/proc/self/coredump_filter", "0");  // none of edashim's memory
  core.rlim_cur = enough;
  ::setrlimit(RLIMIT_CORE, &core);
  return true;
}

}  // namespace

bool core_lands_in_cwd(std::string_view pattern) {
  while (!pattern.empty() && (pattern.back() == '\n' || pattern.back() == ' ')) pattern.remove_suffix(1);
  return !pattern.empty() && pattern[0] != '|' && pattern[0] != '/';
}

void die_like(int sig, bool core_dumped) {
  if (!(core_dumped && prepare_private_core())) {
    // No core of edashim anywhere: RLIMIT_CORE stops a file, but a pipe core_pattern
    // (systemd-coredump, apport) ignores it; a non-dumpable process is not dumped at all.
    ::prctl(PR_SET_DUMPABLE, 0);
    struct rlimit none = {0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
  }
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::kill(::getpid(), sig);
  ::_exit(128 + sig);  // only for signals whose default action does not end the process
}

}  // namespace run
