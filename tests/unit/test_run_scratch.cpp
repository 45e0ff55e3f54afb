// The scratch and probe directories' ownership (issue 12, items 9-12): which names a sweep may
// look at, the free-space rule, and the lock that decides what a sweep removes.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "run/scratch.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

TEST_CASE("Scratch: a sweep looks only at this user's run directories, never at kept ones", "[scratch]") {
  CHECK(run::is_sweepable_name("edashim-1000-4242-abcDEF", 1000));
  CHECK_FALSE(run::is_sweepable_name("edashim-1001-4242-abcDEF", 1000));  // another user's
  CHECK_FALSE(run::is_sweepable_name("edashim-kept-1000-4242-abcDEF", 1000));  // keep_scratch
  CHECK_FALSE(run::is_sweepable_name("edashim-10000-4242-abcDEF", 1000));  // uid 10000, not 1000
  CHECK_FALSE(run::is_sweepable_name("edashim-1000-", 1000));
  CHECK_FALSE(run::is_sweepable_name("edashim-e2e-x", 1000));
  CHECK(run::kept_prefix(1000) == "edashim-kept-1000-");
}

TEST_CASE("Scratch: the free space asked for is the larger of the MiB and the share of RAM", "[scratch]") {
  int64_t gib = int64_t(1) << 30;
  CHECK(run::required_free_bytes(0, 10, 16 * gib) == int64_t(1.6 * double(gib)) + 1);
  CHECK(run::required_free_bytes(256, 0, 16 * gib) == 256 << 20);
  CHECK(run::required_free_bytes(4096, 10, 16 * gib) == 4 * gib);
  CHECK(run::required_free_bytes(0, 0, 16 * gib) == 0);
  CHECK(run::required_free_bytes(0, 50, 0) == 0);  // RAM unknown: only the MiB count
  CHECK(run::required_free_bytes(0, 100, 8 * gib) == 8 * gib);
}

TEST_CASE("Scratch: a sweep removes an unlocked run directory and keeps a locked one", "[scratch]") {
  TempDir t;
  std::string error;
  auto live = run::make_locked_dir(t.path, run::sweepable_prefix(::getuid()), error);
  REQUIRE(!live.path.empty());
  auto dead = run::make_locked_dir(t.path, run::sweepable_prefix(::getuid()), error);
  REQUIRE(!dead.path.empty());
  auto kept = run::make_locked_dir(t.path, run::kept_prefix(::getuid()), error);
  REQUIRE(!kept.path.empty());
  t.write(util::basename(live.path) + "/file", "x");
  t.write(util::basename(dead.path) + "/file", "x");
  ::close(dead.lock_fd);  // its run ended without removing it (SIGKILL)
  ::close(kept.lock_fd);
  run::sweep_stale_scratch(t.path);
  CHECK(util::exists(live.path + "/file"));
  CHECK_FALSE(util::exists(dead.path));
  CHECK(util::exists(kept.path));
  // The owner's end: in use while another descriptor of the lock lives (a daemon), then removed.
  int daemon = ::dup(live.lock_fd);
  ::close(live.lock_fd);
  CHECK(run::remove_if_unlocked(live.path) == run::Removal::in_use);
  CHECK(util::exists(live.path + "/file"));
  ::close(daemon);
  CHECK(run::remove_if_unlocked(live.path) == run::Removal::removed);
  CHECK_FALSE(util::exists(live.path));
  CHECK(run::remove_if_unlocked(live.path) == run::Removal::gone);
}

TEST_CASE("Scratch: a directory is created locked, close-on-exec, mode 0700", "[scratch]") {
  TempDir t;
  std::string error;
  auto d = run::make_locked_dir(t.path, run::sweepable_prefix(::getuid()), error);
  REQUIRE(!d.path.empty());
  struct stat st;
  REQUIRE(::stat(d.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  CHECK((::fcntl(d.lock_fd, F_GETFD) & FD_CLOEXEC) != 0);
  CHECK(run::remove_if_unlocked(d.path) == run::Removal::in_use);
  ::close(d.lock_fd);
  CHECK(run::remove_if_unlocked(d.path) == run::Removal::removed);
  auto none = run::make_locked_dir(t.path + "/missing", run::sweepable_prefix(::getuid()), error);
  CHECK(none.path.empty());
  CHECK(error.find(t.path + "/missing") != std::string::npos);
}

TEST_CASE("Scratch: a temporary directory the user set is found in TMPDIR, TMP or TEMP", "[scratch]") {
  CHECK(run::user_temp_dir({"PATH=/bin", "TMPDIR=/big/disk"}) == "TMPDIR=/big/disk");
  CHECK(run::user_temp_dir({"TEMP=/t", "TMP=/u"}) == "TMP=/u");  // TMPDIR, then TMP, then TEMP
  CHECK(run::user_temp_dir({"TMPDIR=", "PATH=/bin"}).empty());  // empty: as good as unset
  CHECK(run::user_temp_dir({"TMPDIRX=/a", "MYTMP=/b"}).empty());
}
