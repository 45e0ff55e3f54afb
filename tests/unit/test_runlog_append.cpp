// runlog/append.cpp: a line is written under the exclusive lock on the current log file, and a
// writer that waited for the lock while the file was rotated away writes to the new file.
// (Issue 27, tests/mutants: runlog-no-lock, runlog-rotated-file-written: 64 concurrent e2e
// writers did not catch either, O_APPEND keeps short lines whole without the lock.)
#include <fcntl.h>
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
