// The scratch and probe directories' ownership (issue 12, items 9-12): which names a sweep may
// look at, the free-space rule, and the lock that decides what a sweep removes.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include <catch2/catch.hpp>

#include "run/environment.hpp"
#include "run/scratch.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

namespace {
// A directory make_locked_dir made: the test stops here when it could not.
run::LockedDir locked_dir(const std::string& base, const std::string& prefix) {
  auto d = run::make_locked_dir(base, prefix);
  REQUIRE(d.ok());
  return std::move(*d);
}
}  // namespace

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

TEST_CASE("Scratch: a sweep removes no more than its budget, each seen before it goes", "[scratch]") {
  TempDir t;
  for (int i = 0; i < 3; ++i) {
    auto dead = locked_dir(t.path, run::sweepable_prefix(::getuid()));
    REQUIRE(!dead.path.empty());
  }  // each lock let go: three dead runs
  std::vector<std::string> seen;
  auto note = [&](const std::string& dir) { seen.push_back(dir); };
  CHECK(run::sweep_stale_scratch(t.path, note, 2) == 2);
  CHECK(seen.size() == 2);
  for (const auto& d : seen) CHECK_FALSE(util::exists(d));
  CHECK(run::sweep_stale_scratch(t.path, note) == 1);
  CHECK(seen.size() == 3);
  CHECK(run::sweep_stale_scratch(t.path, note) == 0);
}

TEST_CASE("Scratch: a sweep removes an unlocked run directory and keeps a locked one", "[scratch]") {
  TempDir t;
  auto live = locked_dir(t.path, run::sweepable_prefix(::getuid()));
  REQUIRE(!live.path.empty());
  auto dead = locked_dir(t.path, run::sweepable_prefix(::getuid()));
  REQUIRE(!dead.path.empty());
  auto kept = locked_dir(t.path, run::kept_prefix(::getuid()));
  REQUIRE(!kept.path.empty());
  t.write(util::basename(live.path) + "/file", "x");
  t.write(util::basename(dead.path) + "/file", "x");
  dead.lock_fd.reset();  // its run ended without removing it (SIGKILL)
  kept.lock_fd.reset();
  run::sweep_stale_scratch(t.path);
  CHECK(util::exists(live.path + "/file"));
  CHECK_FALSE(util::exists(dead.path));
  CHECK(util::exists(kept.path));
  // The owner's end: in use while another descriptor of the lock lives (a daemon), then removed.
  int daemon = ::dup(live.lock_fd.get());
  live.lock_fd.reset();
  CHECK(run::remove_if_unlocked(live.path) == run::Removal::in_use);
  CHECK(util::exists(live.path + "/file"));
  ::close(daemon);
  CHECK(run::remove_if_unlocked(live.path) == run::Removal::removed);
  CHECK_FALSE(util::exists(live.path));
  CHECK(run::remove_if_unlocked(live.path) == run::Removal::gone);
}

TEST_CASE("Scratch: a directory is created locked, close-on-exec, mode 0700", "[scratch]") {
  TempDir t;
  auto d = locked_dir(t.path, run::sweepable_prefix(::getuid()));
  REQUIRE(!d.path.empty());
  struct stat st;
  REQUIRE(::stat(d.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  CHECK((::fcntl(d.lock_fd.get(), F_GETFD) & FD_CLOEXEC) != 0);
  CHECK(run::remove_if_unlocked(d.path) == run::Removal::in_use);
  // Shared: each process of the run that uses it takes a lock of its own beside the run's
  // (probe/probe.c), and holds it alone once the run's is gone.
  int process = ::open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK(::flock(process, LOCK_SH | LOCK_NB) == 0);
  d.lock_fd.reset();
  CHECK(run::remove_if_unlocked(d.path) == run::Removal::in_use);
  ::close(process);
  CHECK(run::remove_if_unlocked(d.path) == run::Removal::removed);
  auto none = run::make_locked_dir(t.path + "/missing", run::sweepable_prefix(::getuid()));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().find(t.path + "/missing") != std::string::npos);
}

TEST_CASE("Scratch: a temporary directory the user set is found in TMPDIR, TMP or TEMP", "[scratch]") {
  CHECK(run::user_temp_dir({"PATH=/bin", "TMPDIR=/big/disk"}) == "TMPDIR=/big/disk");
  CHECK(run::user_temp_dir({"TEMP=/t", "TMP=/u"}) == "TMP=/u");  // TMPDIR, then TMP, then TEMP
  CHECK(run::user_temp_dir({"TMPDIR=", "PATH=/bin"}).empty());  // empty: as good as unset
  CHECK(run::user_temp_dir({"TMPDIRX=/a", "MYTMP=/b"}).empty());
}

// --- Issue 24: each user's directories live in their own base, /dev/shm/edashim-UID.

namespace {
struct stat stat_of(mode_t type_and_mode, uid_t uid) {
  struct stat st {};
  st.st_mode = type_and_mode;
  st.st_uid = uid;
  return st;
}
}  // namespace

TEST_CASE("Scratch: the user's own base is named for the uid in the shared base", "[scratch]") {
  CHECK(run::own_base("/dev/shm", 1001) == "/dev/shm/edashim-1001");
  CHECK(run::own_base("/run/user/1001", 1001) == "/run/user/1001/edashim-1001");
}

TEST_CASE("Scratch: an own base that is another user's, a link or not a directory is refused", "[scratch]") {
  const std::string own = "/dev/shm/edashim-1000";
  CHECK(run::refuse_own_base(own, stat_of(S_IFDIR | 0700, 1000), 1000).ok());
  CHECK(run::refuse_own_base(own, stat_of(S_IFDIR | 0777, 1000), 1000).ok());  // ours: narrowed, not refused

  auto squatted = run::refuse_own_base(own, stat_of(S_IFDIR | 0777, 4242), 1000);
  CHECK(squatted.refused);
  CHECK(squatted.what.find(own) != std::string::npos);
  CHECK(squatted.what.find("uid 4242") != std::string::npos);
  CHECK(squatted.what.find("0777") != std::string::npos);
  CHECK(squatted.fix.find("rm -r " + own) != std::string::npos);  // what to do, for whom can
  CHECK(squatted.line().find('\n') == std::string::npos);

  auto link = run::refuse_own_base(own, stat_of(S_IFLNK | 0777, 4242), 1000);
  CHECK(link.refused);
  CHECK(link.what.find("symbolic link") != std::string::npos);
  CHECK(link.what.find("uid 4242") != std::string::npos);
  CHECK_FALSE(run::refuse_own_base(own, stat_of(S_IFLNK | 0777, 1000), 1000).ok());  // even our own link
  auto file = run::refuse_own_base(own, stat_of(S_IFREG | 0600, 1000), 1000);
  CHECK(file.refused);
  CHECK(file.fix == "remove it: rm " + own);
}

TEST_CASE("Scratch: the own base is created 0700, and a wider mode of ours is narrowed", "[scratch]") {
  TempDir t;
  std::string own = run::own_base(t.path, ::getuid());
  CHECK(run::check_own_base(own).ok());  // missing: fine, and not created by a check
  CHECK_FALSE(util::exists(own));
  REQUIRE(run::make_own_base(own).ok());
  struct stat st;
  REQUIRE(::lstat(own.c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));
  CHECK((st.st_mode & 07777) == 0700);
  ::chmod(own.c_str(), 0777);
  REQUIRE(run::make_own_base(own).ok());
  REQUIRE(::lstat(own.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
}

TEST_CASE("Scratch: an own base that is a link is refused and its target left alone", "[scratch]") {
  TempDir t;
  std::string elsewhere = t.path + "/elsewhere";
  REQUIRE(::mkdir(elsewhere.c_str(), 0777) == 0);
  ::chmod(elsewhere.c_str(), 0777);
  std::string own = run::own_base(t.path, ::getuid());
  REQUIRE(::symlink(elsewhere.c_str(), own.c_str()) == 0);
  CHECK(run::check_own_base(own).refused);
  CHECK(run::make_own_base(own).refused);
  std::string note;
  auto d = run::make_scratch(own, false, note);
  CHECK(d.path.empty());
  CHECK(d.refused.refused);
  CHECK(note.find(own + " is a symbolic link") != std::string::npos);
  CHECK(note.find("TMPDIR left as it was") != std::string::npos);
  struct stat st;
  REQUIRE(::stat(elsewhere.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0777);  // not narrowed through the link
  std::string stale_looking = elsewhere + "/" + run::sweepable_prefix(::getuid()) + "1-abcdef";
  util::make_dirs(stale_looking);
  ::chmod(elsewhere.c_str(), 0700);  // what a sweep would take for a base of ours, but for the link
  run::sweep_stale_scratch(own);     // a link is never listed, let alone swept
  CHECK(util::exists(stale_looking));
}

TEST_CASE("Scratch: another user's own base is refused (root only: chown)", "[scratch]") {
  if (::getuid() != 0) EDASHIM_SKIP("needs root to make a directory of another user's");
  TempDir t;
  std::string own = run::own_base(t.path, ::getuid());
  REQUIRE(::mkdir(own.c_str(), 0777) == 0);
  REQUIRE(::chown(own.c_str(), 65534, 65534) == 0);
  auto check = run::make_own_base(own);
  CHECK(check.refused);
  CHECK(check.what.find("uid 65534") != std::string::npos);
  struct stat st;
  REQUIRE(::lstat(own.c_str(), &st) == 0);
  CHECK(st.st_uid == 65534);  // neither taken over nor narrowed
  std::string stale = own + "/edashim-0-1-abcdef";
  REQUIRE(::mkdir(stale.c_str(), 0700) == 0);
  run::sweep_stale_scratch(own);  // another user's base: never listed
  CHECK(util::exists(stale));
}

TEST_CASE("Scratch: the run's directory is made inside the own base, and swept only from there", "[scratch]") {
  TempDir t;
  std::string own = run::own_base(t.path, ::getuid());
  std::string note;
  auto d = run::make_scratch(own, false, note);
  REQUIRE(!d.path.empty());
  CHECK(util::dirname(d.path) == own);
  CHECK(d.refused.ok());
  // A name of the old layout beside the own base: not this user's sweep's business any more.
  std::string beside = t.path + "/" + run::sweepable_prefix(::getuid()) + "1-abcdef";
  util::make_dirs(beside);
  d.lock_fd.reset();
  run::sweep_stale_scratch(own);
  CHECK_FALSE(util::exists(d.path));
  CHECK(util::exists(beside));
  // Writable by others (ours, not yet narrowed): not listed.
  auto again = run::make_scratch(own, false, note);
  REQUIRE(!again.path.empty());
  again.lock_fd.reset();
  ::chmod(own.c_str(), 0777);
  run::sweep_stale_scratch(own);
  CHECK(util::exists(again.path));
  ::chmod(own.c_str(), 0700);
  run::sweep_stale_scratch(own);
  CHECK_FALSE(util::exists(again.path));
}

TEST_CASE("Scratch: a shared base must not let others rename the own base in it", "[scratch]") {
  CHECK(run::refuse_shared_base("/dev/shm", stat_of(S_IFDIR | 01777, 0), 1000).ok());  // sticky, root's
  CHECK(run::refuse_shared_base("/run/user/1000", stat_of(S_IFDIR | 0700, 1000), 1000).ok());
  auto open_dir = run::refuse_shared_base("/team/shm", stat_of(S_IFDIR | 0777, 0), 1000);
  CHECK(open_dir.refused);
  CHECK(open_dir.what.find("/team/shm (owner root (uid 0), mode 0777)") != std::string::npos);
  CHECK(open_dir.fix.find("chmod +t") != std::string::npos);
  CHECK(run::refuse_shared_base("/home/mallory/shm", stat_of(S_IFDIR | 01777, 4242), 1000).refused);  // theirs
  CHECK_FALSE(run::refuse_shared_base("/x", stat_of(S_IFREG | 0644, 0), 1000).ok());
}

namespace {
// A shell started with `env` (and RLIMIT_NOFILE `nofile` when not 0) that says it is ready (its
// constructors have run), then waits for its standard input to end.
struct Shell {
  pid_t pid = -1;
  int input = -1;
  Shell(const std::vector<std::string>& env, rlim_t nofile = 0) {
    int out[2], in[2];
    REQUIRE(::pipe(out) == 0);
    REQUIRE(::pipe(in) == 0);
    pid = ::fork();
    if (pid == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
      if (nofile) {
        struct rlimit r = {nofile, nofile};
        ::setrlimit(RLIMIT_NOFILE, &r);
      }
      std::vector<char*> e;
      for (const auto& v : env) e.push_back(const_cast<char*>(v.c_str()));
      e.push_back(nullptr);
      char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>("echo ready; read x"), nullptr};
      ::execve("/bin/sh", argv, e.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    input = in[1];
    char buf[8] = {};
    CHECK(::read(out[0], buf, sizeof buf - 1) > 0);
    ::close(out[0]);
  }
  ~Shell() { end(); }
  void end() {
    if (input >= 0) {
      ::close(input);
      ::waitpid(pid, nullptr, 0);
    }
    input = -1;
  }
  // Its descriptors open on `dir`.
  std::vector<int> descriptors_on(const std::string& dir) const {
    std::vector<int> fds;
    std::string base = "/proc/" + std::to_string(pid) + "/fd";
    for (int fd = 0; fd < 1024; ++fd)
      if (util::real_path(base + "/" + std::to_string(fd)) == dir) fds.push_back(fd);
    return fds;
  }
};
}  // namespace

TEST_CASE("Scratch: the probe's library holds the run's scratch in each process whose TMPDIR it still is", "[scratch]") {
  TempDir t;
  auto d = locked_dir(t.path, run::sweepable_prefix(::getuid()));
  REQUIRE(!d.path.empty());
  d.lock_fd.reset();  // the run's own lock gone: what is held is the process's
  std::vector<std::string> env{"LD_PRELOAD=" EDASHIM_PROBE_LIBRARY, "PATH=/usr/bin:/bin", "TMPDIR=" + d.path,
                               std::string(run::kScratchVar) + "=" + d.path};
  Shell held(env);
  auto fds = held.descriptors_on(d.path);
  CHECK(fds.size() == 1);
  CHECK((fds.empty() || fds[0] >= 64));  // out of the way of descriptors a program numbers itself
  CHECK(run::remove_if_unlocked(d.path) == run::Removal::in_use);
  held.end();
  // Given another TMPDIR, a process does not use the scratch: it holds nothing.
  env[2] = "TMPDIR=" + t.path;
  CHECK(Shell(env).descriptors_on(d.path).empty());
  // Under a `ulimit -n` of 64, a descriptor would be one of the program's few: none is taken.
  env[2] = "TMPDIR=" + d.path;
  CHECK(Shell(env, 64).descriptors_on(d.path).empty());
  CHECK(run::remove_if_unlocked(d.path) == run::Removal::removed);
}
