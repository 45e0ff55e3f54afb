#include "run/runlog.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fs.hpp"

namespace run {

std::string default_log_path() { return util::xdg_state_home() + "/edashim/runs.jsonl"; }

bool append_log_line(const std::string& path, const std::string& line, std::string& error) {
  if (!util::make_dirs(util::dirname(path), 0700)) {
    error = "cannot create " + util::dirname(path) + ": " + std::strerror(errno);
    return false;
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  std::string data = line + "\n";
  // O_APPEND makes each write land at the end; the lock keeps a long line in one piece even
  // if the kernel splits the write.
  while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  size_t done = 0;
  bool ok = true;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "cannot write " + path + ": " + std::strerror(errno);
      ok = false;
      // Leave no partial line behind for readers.
      if (done > 0 && ::ftruncate(fd, ::lseek(fd, 0, SEEK_END) - off_t(done)) != 0) {
      }
      break;
    }
    done += size_t(n);
  }
  ::flock(fd, LOCK_UN);
  ::close(fd);
  return ok;
}

}  // namespace run
