#include "util/fs.hpp"

#include "util/strings.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace util {

std::optional<FileId> file_id(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

namespace {
std::optional<std::string> read_all(const Fd& fd, size_t limit) {
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || out.size() + size_t(n) > limit) return std::nullopt;
    if (n == 0) break;
    out.append(buf, size_t(n));
  }
  return out;
}
}  // namespace

std::optional<std::string> read_file(const std::string& path, size_t limit) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  return read_all(fd, limit);
}

std::optional<std::string> read_regular_file(const std::string& path, size_t limit) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return read_all(fd, limit);
}

Result<Fd> lock_beside(const std::string& path) {
  if (!make_dirs(dirname(path), 0700)) return fail("cannot create " + dirname(path) + ": " + std::strerror(errno));
  std::string lock_path = path + ".lock";
  Fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!lock || ::flock(lock.get(), LOCK_EX) != 0) return fail("cannot lock " + lock_path + ": " + std::strerror(errno));
  return lock;
}

bool write_file_atomic(const std::string& path, const std::string& content, mode_t mode) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd) return false;
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fd.reset();
      ::unlink(tmp.c_str());
      return false;
    }
    done += size_t(n);
  }
  // close's own error counts here (a full disk on NFS shows only there), so it is called by hand.
  if (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

Status write_new_file(const std::string& path, const std::string& content) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return fail("cannot create " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = n < 0 ? std::strerror(errno) : "nothing written";
      fd.reset();
      ::unlink(path.c_str());
      return fail("cannot write " + path + ": " + why);
    }
    done += size_t(n);
  }
  return Ok{};
}

bool starts_with_hashbang(const char* path) {
  Fd fd(::open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) return false;
  char head[2];
  ssize_t n;
  do n = ::read(fd.get(), head, sizeof head);
  while (n < 0 && errno == EINTR);
  return n == 2 && head[0] == '#' && head[1] == '!';
}

bool is_regular_executable(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::map<std::string, std::string> toml_files_in(const std::string& dir) {
  std::map<std::string, std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (auto* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name.size() > 5 && name.ends_with(".toml")) out[std::string(name.substr(0, name.size() - 5))] = dir + "/" + e->d_name;
  }
  ::closedir(d);
  return out;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

bool make_dirs(const std::string& path, mode_t mode) {
  if (path.empty() || is_directory(path)) return !path.empty();
  std::string parent = dirname(path);
  if (parent != path && !make_dirs(parent, mode)) return false;
  return ::mkdir(path.c_str(), mode) == 0 || errno == EEXIST;
}

std::optional<std::string> real_path(const std::string& path) {
  // The kernel's name for an O_PATH descriptor: two path walks, where realpath(3) makes one
  // readlink per component (a dozen system calls for a path in a project tree).
  if (Fd fd(::open(path.c_str(), O_PATH | O_CLOEXEC)); fd)
    if (auto real = fd_path(fd.get())) return real;
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

std::optional<std::string> fd_path(int fd) {
  char link[32], buf[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, buf, sizeof buf - 1);
  // No /proc, or a name that is not a path (a deleted file, a pipe): let the caller decide.
  if (n <= 0 || buf[0] != '/') return std::nullopt;
  std::string_view name(buf, size_t(n));
  if (name.size() >= 10 && name.substr(name.size() - 10) == " (deleted)") return std::nullopt;
  return std::string(name);
}

std::string dirname(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string basename(const std::string& path) {
  auto pos = path.find_last_of('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

std::string self_exe() {
  // The kernel's path is already canonical (no links, no dots); read once per process. Without
  // /proc (a build chroot, a sandbox without it), the path the process was exec'd by, resolved:
  // a program that cannot tell itself from others (edashim: its link from the real tool) loops.
  static const std::string exe = [] {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) return std::string(buf, size_t(n));
    const char* execfn = reinterpret_cast<const char*>(::getauxval(AT_EXECFN));
    if (execfn && *execfn)
      if (char* real = ::realpath(execfn, nullptr)) {
        std::string path(real);
        ::free(real);
        return path;
      }
    return std::string();
  }();
  return exe;
}

std::vector<std::string> passwd_fields(uid_t uid) {
  std::string id = std::to_string(uid);
  for (const auto& line : split(read_file("/etc/passwd", 4 << 20).value_or(""), '\n')) {
    auto f = split(line, ':');
    if (f.size() >= 7 && f[2] == id && !f[0].empty()) return f;
  }
  return {};
}

std::string home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h == '/') return h;
  if (auto f = passwd_fields(::getuid()); !f.empty() && !f[5].empty() && f[5][0] == '/') return f[5];
  return "/";
}

namespace {
std::string xdg(const char* var, const char* fallback) {
  if (const char* v = std::getenv(var); v && *v == '/') return v;  // the spec says relative values are ignored
  return home_dir() + fallback;
}
}  // namespace

std::string xdg_config_home() { return xdg("XDG_CONFIG_HOME", "/.config"); }
std::string xdg_state_home() { return xdg("XDG_STATE_HOME", "/.local/state"); }
std::string xdg_cache_home() { return xdg("XDG_CACHE_HOME", "/.cache"); }

bool remove_tree(const std::string& path) {
  if (::rmdir(path.c_str()) == 0) return true;  // the usual case: a scratch directory left empty
  ::nftw(
      path.c_str(),
      [](const char* p, const struct stat*, int type, struct FTW*) {
        if (type == FTW_DP) ::rmdir(p);
        else ::unlink(p);
        return 0;
      },
      32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
  return !exists(path);
}

}  // namespace util
