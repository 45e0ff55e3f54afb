// runlog/append.cpp: a line is written under the exclusive lock on the current log file, and a
// writer that waited for the lock while the file was rotated away writes to the new file.
// (Issue 27, tests/mutants: runlog-no-lock, runlog-rotated-file-written: 64 concurrent e2e
// writers did not catch either, O_APPEND keeps short lines whole without the lock.)
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "runlog/append.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

namespace {

// Whether /proc/locks shows a process waiting (" -> ") for a lock on inode `ino`.
bool someone_waits_for(ino_t ino) {
  std::ifstream locks("/proc/locks");
  std::string line;
  const std::string tail = ":" + std::to_string(ino) + " ";
  while (std::getline(locks, line))
    if (line.find("->") != std::string::npos && line.find(tail) != std::string::npos) return true;
  return false;
}

std::string contents(const std::string& path) { return util::read_file(path, 1 << 20).value_or("<absent>"); }

}  // namespace

TEST_CASE("Run log: a writer waits for the lock, and writes to the file that replaced a rotated one", "[runlog]") {
  TempDir t;
  const std::string path = t.path + "/state/runs.jsonl";
  REQUIRE(runlog::append_line(path, "first").ok());

  // Another writer holds the lock: as during its rotation.
  int held = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(held >= 0);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  struct stat st;
  REQUIRE(::fstat(held, &st) == 0);

  std::atomic<bool> done{false};
  bool ok = false;
  std::string thread_error;
  std::thread writer([&] {
    auto written = runlog::append_line(path, "second");
    ok = written.ok();
    if (!ok) thread_error = written.error();
    done = true;
  });
  // Wait for the state (the writer blocked on the lock), generously for a loaded machine.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done && !someone_waits_for(st.st_ino) && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK_FALSE(done.load());  // it did not write past the lock
  CHECK(contents(path) == "first\n");

  // The holder rotates (renames the file away) and lets go: the waiting writer must notice that
  // its file is no longer the log and write to the new one.
  REQUIRE(::rename(path.c_str(), (path + ".1").c_str()) == 0);
  ::close(held);
  writer.join();
  CHECK(ok);
  CHECK(thread_error.empty());
  CHECK(contents(path) == "second\n");
  CHECK(contents(path + ".1") == "first\n");
}

// An empty log holds no line to move away: a line over the limit goes into it, and the older
// files keep their places (rotating it would push the oldest out for an empty file).
TEST_CASE("Run log: rotation: an empty log is written to, not rotated, even by a line over the limit", "[runlog]") {
  TempDir t;
  const std::string path = t.path + "/runs.jsonl";
  const runlog::Limits limits{100, 1};
  REQUIRE(runlog::append_line(path, "old", limits).ok());
  REQUIRE(runlog::append_line(path, std::string(200, 'x'), limits).ok());  // premise: "old" rotated
  REQUIRE(contents(path + ".1") == "old\n");
  REQUIRE(::truncate(path.c_str(), 0) == 0);
  REQUIRE(runlog::append_line(path, std::string(150, 'y'), limits).ok());
  CHECK(contents(path) == std::string(150, 'y') + "\n");
  CHECK(contents(path + ".1") == "old\n");
  CHECK_FALSE(util::exists(path + ".2"));
}

TEST_CASE("Run log: EDASHIM_LOG=/dev/stderr leading to a file past the limit is written, never rotated", "[runlog]") {
  // Rotation renames: as root, /dev/stderr itself would be renamed, for the whole system. So in
  // a mount namespace of its own, over a /dev of its own, where that rename could do no harm.
  if (::geteuid() != 0) EDASHIM_SKIP("needs root for a mount namespace");
  TempDir t;
  std::string out = t.path + "/build.log";
  t.write("build.log", std::string(4096, 'x') + "\n");
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int fd = ::open(out.c_str(), O_WRONLY | O_APPEND);
    bool set = fd >= 0 && ::dup2(fd, STDERR_FILENO) == STDERR_FILENO && ::unshare(CLONE_NEWNS) == 0 &&
               ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
               ::mount("none", "/dev", "tmpfs", 0, "mode=0755") == 0 && ::symlink("/proc/self/fd/2", "/dev/stderr") == 0;
    if (!set) ::_exit(3);
    auto written = runlog::append_line("/dev/stderr", "{\"line\":1}", {1024, 2}, {});
    struct stat st;
    bool link_kept = ::lstat("/dev/stderr", &st) == 0 && S_ISLNK(st.st_mode) && ::lstat("/dev/stderr.1", &st) != 0;
    ::_exit(!written ? 4 : !link_kept ? 5 : 0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) EDASHIM_SKIP("no mount namespace here");
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 4: not written; 5: /dev/stderr renamed (rotated)
  CHECK(util::read_file(out)->find("{\"line\":1}\n") == 4097);
}
