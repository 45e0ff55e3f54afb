#include "util/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fd.hpp"

extern char** environ;

namespace util {
namespace {

constexpr std::size_t kCap = 1 << 20;

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

std::vector<std::string> environment_plus(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    bool overridden = false;
    for (const auto& x : extra) overridden |= x.compare(0, name.size() + 1, name + "=") == 0;
    if (!overridden) env.push_back(kv);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

}  // namespace

Captured capture(const std::vector<std::string>& argv_in, const std::vector<std::string>& extra_env) {
  Captured c;
  int out_ends[2], err_ends[2];
  if (::pipe2(out_ends, O_CLOEXEC) != 0) {
    c.start_error = std::strerror(errno);
    return c;
  }
  Fd out_r(out_ends[0]), out_w(out_ends[1]);
  if (::pipe2(err_ends, O_CLOEXEC) != 0) {
    c.start_error = std::strerror(errno);
    return c;
  }
  Fd err_r(err_ends[0]), err_w(err_ends[1]);
  std::vector<std::string> argv = argv_in, env = environment_plus(extra_env);
  posix_spawn_file_actions_t fa;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
  ::posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
  pid_t pid = 0;
  auto av = pointers(argv), ev = pointers(env);
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, av.data(), ev.data());
  ::posix_spawn_file_actions_destroy(&fa);
  out_w.reset();
  err_w.reset();
  if (rc != 0) {
    c.start_error = argv[0] + ": " + std::strerror(rc);
    return c;
  }
  // Both pipes drained together: a child that fills one while we block on the other would hang.
  pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0}};
  Fd* ends[2] = {&out_r, &err_r};
  std::string* sinks[2] = {&c.out, &c.err};
  int open_fds = 2;
  char buf[8192];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ends[i]->reset();
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      if (sinks[i]->size() < kCap) sinks[i]->append(buf, std::min<std::size_t>(std::size_t(n), kCap - sinks[i]->size()));
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

Result<pid_t> spawn_detached(const std::vector<std::string>& argv_in, const std::string& log) {
  std::vector<std::string> argv = argv_in, env = environment_plus({});
  posix_spawn_file_actions_t fa;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  std::string sink = log.empty() ? "/dev/null" : log;
  ::posix_spawn_file_actions_addopen(&fa, 1, sink.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  ::posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);  // not in our terminal's process group: Ctrl-C is ours
  pid_t pid = 0;
  auto av = pointers(argv), ev = pointers(env);
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, av.data(), ev.data());
  ::posix_spawn_file_actions_destroy(&fa);
  ::posix_spawnattr_destroy(&attr);
  if (rc != 0) return fail(argv[0] + ": " + std::strerror(rc));
  return pid;
}

}  // namespace util
