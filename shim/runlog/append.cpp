#include "runlog/append.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/fs.hpp"

namespace runlog {

std::string default_path() { return util::xdg_state_home() + "/edashim/runs.jsonl"; }

namespace {

// Renames PATH.(keep-1) to PATH.keep, ..., PATH to PATH.1 (or removes PATH when keep is 0).
// Called with the lock on the current PATH held, which makes the caller the only rotator.
void rotate(const std::string& path, int64_t keep) {
  if (keep <= 0) {
    ::unlink(path.c_str());
    return;
  }
  for (int64_t i = keep - 1; i >= 1; --i)
    ::rename((path + "." + std::to_string(i)).c_str(), (path + "." + std::to_string(i + 1)).c_str());
  ::rename(path.c_str(), (path + ".1").c_str());
}

// Opens PATH and locks it; returns the descriptor once it is locked *and* still the file at
// PATH (a writer that rotated the log while we waited for the lock has renamed our file away).
// Gives up only when the file is replaced at least 100 times AND for more than 5 s: a writer
// starved of CPU among many concurrent ones can lose the race to a rotation 100 times in a
// row (flock is not fair), and a run must not lose its line for that.
util::Result<util::Fd> open_locked(const std::string& path, const util::SharedDirs& shared, struct stat& st) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int attempt = 0; attempt < 100 || std::chrono::steady_clock::now() < give_up; ++attempt) {
    // Creates the directory (0700) on the first run; refuses what another user could have planted.
    auto file = util::open_owned(path, util::FileUse::append, shared, 0600);
    if (!file.ok()) return util::fail(file.why());
    util::Fd fd = std::move(file.fd);
    while (::flock(fd.get(), LOCK_EX) != 0 && errno == EINTR) {
    }
    // A descriptor of the process (/dev/stderr) is what it was when opened: the same path in
    // another process names another file.
    struct stat now;
    if (::fstat(fd.get(), &st) == 0 && (names_own_descriptor(path) || (::stat(path.c_str(), &now) == 0 &&
                                                                        now.st_dev == st.st_dev && now.st_ino == st.st_ino)))
      return fd;
    // Rotated under us (fd closes as it goes): open the new file.
  }
  return util::fail("cannot lock " + path + ": it keeps being replaced");
}

}  // namespace

bool names_own_descriptor(const std::string& path) {
  for (const char* dir : {"/dev/fd/", "/proc/self/", "/proc/thread-self/"})
    if (path.starts_with(dir)) return true;
  return path == "/dev/stdin" || path == "/dev/stdout" || path == "/dev/stderr" || path == "/dev/tty";
}

util::Status append_line(const std::string& path, const std::string& line, const Limits& limits,
                         const util::SharedDirs& shared) {
  std::string data = line + "\n";
  struct stat st;
  auto locked = open_locked(path, shared, st);
  if (!locked) return std::move(locked).take_error();
  util::Fd fd = std::move(*locked);
  // Only a regular file at a path of its own is rotated: EDASHIM_LOG=/dev/stdout must never
  // rename a device, nor /dev/stderr itself when it leads to a file (2> err.txt).
  if (limits.max_bytes > 0 && S_ISREG(st.st_mode) && st.st_size > 0 && !names_own_descriptor(path) &&
      st.st_size + off_t(data.size()) > off_t(limits.max_bytes)) {
    rotate(path, limits.keep);
    // Our lock is on the renamed file; writers waiting for it will see that and reopen.
    auto next = open_locked(path, shared, st);
    fd.reset();
    if (!next) return std::move(next).take_error();
    fd = std::move(*next);
  }
  // O_APPEND makes each write land at the end; the lock keeps a long line in one piece even
  // if the kernel splits the write.
  size_t done = 0;
  std::string error;
  while (done < data.size()) {
    ssize_t n = ::write(fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "cannot write " + path + ": " + std::strerror(n < 0 ? errno : ENOSPC);
      // Leave no partial line behind for readers.
      if (done > 0 && ::ftruncate(fd.get(), ::lseek(fd.get(), 0, SEEK_END) - off_t(done)) != 0) {
      }
      break;
    }
    done += size_t(n);
  }
  fd.reset();  // releases the lock: no other descriptor shares this open file
  if (!error.empty()) return util::fail(error);
  return util::Ok{};
}

}  // namespace runlog
