#include "config/config_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace config {
namespace {

constexpr size_t kMaxBytes = 1 << 20;

// A file edashim would refuse to read: another user could change what the tool runs with.
std::string unsafe_ownership(const std::string& path, const struct stat& st, const char* what) {
  if (st.st_uid != ::getuid() && st.st_uid != 0)
    return std::string(what) + "owned by uid " + std::to_string(st.st_uid) + ", not by you or root";
  if (!S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)))
    return std::string(what) + "writable by group or others (fix: chmod go-w " + util::shell_quote(path) + ")";
  return "";
}

}  // namespace

ConfigFile read_config_file(const std::string& path, bool check_owner) {
  ConfigFile out;
  struct stat link;
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      out.found = true;
      out.why = std::strerror(errno);
    }
    return out;
  }
  out.found = true;
  // Another user's link (in /tmp, say) pointing at one of our files is theirs to repoint.
  if (check_owner && S_ISLNK(link.st_mode))
    if (auto bad = unsafe_ownership(path, link, "a link "); !bad.empty()) {
      out.refused = bad;
      return out;
    }
  // O_NONBLOCK: a FIFO or a terminal named .edashim.toml must not hang every run there.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) out.found = false;  // a dangling link: as if absent
    else if (e == ELOOP) out.refused = "a link loop";
    else out.why = std::strerror(e);
    // lstat found the file, so this is not "no such file": the caller says why it is skipped.
    out.no_descriptor = e == EMFILE || e == ENFILE;
    return out;
  }
  out.real = util::fd_path(fd).value_or(path);
  struct stat st;
  if (::fstat(fd, &st) != 0) out.why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) out.refused = "not a regular file";
  else if (auto bad = check_owner ? unsafe_ownership(path, st, "") : ""; !bad.empty()) out.refused = bad;
  else if (size_t(st.st_size) > kMaxBytes) out.why = "larger than 1 MiB";
  else {
    char buf[65536];
    while (true) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || out.content.size() + size_t(n) > kMaxBytes) {
        out.why = n < 0 ? std::strerror(errno) : "larger than 1 MiB";
        out.content.clear();
        break;
      }
      if (n == 0) break;
      out.content.append(buf, size_t(n));
    }
  }
  ::close(fd);
  return out;
}

std::string trust_key(const std::string& path) {
  std::string dir = util::dirname(path), base = util::basename(path);
  auto real_dir = util::real_path(dir.empty() ? "." : dir);
  if (!real_dir || base.empty() || base == "." || base == "..") return "";
  return (*real_dir == "/" ? "" : *real_dir) + "/" + base;
}

}  // namespace config
