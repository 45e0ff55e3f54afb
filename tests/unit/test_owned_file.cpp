// The one rule for files edashim reads or appends to (util/owned_file.hpp): which files and
// directories pass, which are refused, and that each refusal names the file, owner and fix.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "skip.hpp"
#include "temp_dir.hpp"
#include "util/owned_file.hpp"

namespace {

struct stat mode_of(mode_t type_and_mode, uid_t owner, nlink_t links = 1) {
  struct stat st {};
  st.st_mode = type_and_mode;
  st.st_uid = owner;
  st.st_nlink = links;
  return st;
}

// Uids no real account has: other tests create users (1001, ...), whose names would appear.
constexpr uid_t kMe = 3999000, kOther = 3999001;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("Owned file rule: the user's own file passes, root's too", "[owned_file]") {
  CHECK(util::refuse_file("/h/log", mode_of(S_IFREG | 0600, kMe), kMe, false).empty());
  CHECK(util::refuse_file("/h/log", mode_of(S_IFREG | 0644, kMe), kMe, false).empty());
  CHECK(util::refuse_file("/etc/edashim/config.toml", mode_of(S_IFREG | 0644, 0), kMe, false).empty());
}

TEST_CASE("Owned file rule: another user's file is refused with its owner, mode and the setting", "[owned_file]") {
  // The words that tell how to accept a shared directory are the caller's (util/ names nothing of edashim).
  auto why = util::refuse_file("/shared/logs/h.jsonl", mode_of(S_IFREG | 0644, kOther), kMe, false, "list it in SHARE");
  CHECK(contains(why, "/shared/logs/h.jsonl"));
  CHECK(contains(why, "uid 3999001"));
  CHECK(contains(why, "0644"));
  CHECK(contains(why, "if other users share /shared/logs on purpose, list it in SHARE"));
  CHECK(contains(util::refuse_file("/shared/logs/h.jsonl", mode_of(S_IFREG | 0644, kOther), kMe, false),
                 "it must be yours alone"));
}

TEST_CASE("Owned file rule: a file others or the group can write is refused, with chmod", "[owned_file]") {
  auto others = util::refuse_file("/h/log", mode_of(S_IFREG | 0666, kMe), kMe, false);
  CHECK(contains(others, "writable by others"));
  CHECK(contains(others, "chmod go-w"));
  CHECK(contains(util::refuse_file("/h/log", mode_of(S_IFREG | 0660, kMe), kMe, false), "writable by its group"));
}

TEST_CASE("Owned file rule: hard links and non-regular files are refused even where shared", "[owned_file]") {
  CHECK(contains(util::refuse_file("/s/x", mode_of(S_IFREG | 0600, kMe, 2), kMe, true), "2 hard links"));
  CHECK(contains(util::refuse_file("/s/x", mode_of(S_IFIFO | 0600, kMe), kMe, true), "not a regular file"));
  CHECK(contains(util::refuse_file("/s/x", mode_of(S_IFDIR | 0700, kMe), kMe, false), "not a regular file"));
}

TEST_CASE("Owned file rule: in a shared directory, owner and mode are accepted", "[owned_file]") {
  CHECK(util::refuse_file("/s/x", mode_of(S_IFREG | 0666, kOther), kMe, true).empty());
  CHECK(util::refuse_dir("/s", mode_of(S_IFDIR | 0777, kOther), kMe, true).empty());
}

TEST_CASE("Owned dir rule: writable by others is refused unless sticky, another owner always", "[owned_file]") {
  CHECK(util::refuse_dir("/h", mode_of(S_IFDIR | 0700, kMe), kMe, false).empty());
  CHECK(util::refuse_dir("/tmp", mode_of(S_IFDIR | 01777, 0), kMe, false).empty());
  CHECK(contains(util::refuse_dir("/s", mode_of(S_IFDIR | 0777, kMe), kMe, false), "writable by others"));
  CHECK(contains(util::refuse_dir("/s", mode_of(S_IFDIR | 0775, kMe), kMe, false), "writable by its group"));
  auto squatted = util::refuse_dir("/dev/shm/x", mode_of(S_IFDIR | 0700, kOther), kMe, false);
  CHECK(contains(squatted, "owned by uid 3999001"));
  CHECK(contains(squatted, "it must be yours alone"));
  CHECK(contains(util::refuse_dir("/dev/shm/x", mode_of(S_IFDIR | 0700, kOther), kMe, false, "list it in SHARE"),
                 "on purpose, list it in SHARE"));
}

TEST_CASE("Shared dirs cover a directory and what is below it, not a sibling with the same prefix", "[owned_file]") {
  util::SharedDirs shared{{"/srv/team/"}};
  CHECK(shared.covers("/srv/team"));
  CHECK(shared.covers("/srv/team/logs"));
  CHECK_FALSE(shared.covers("/srv/teammate"));
  CHECK_FALSE(shared.covers("/srv"));
  CHECK_FALSE(util::SharedDirs{}.covers("/srv/team"));
}

TEST_CASE("open_owned: appends create the file and its directory 0700, reads of a missing file are absent",
          "[owned_file]") {
  TempDir t;
  auto f = util::open_owned(t.path + "/new/dir/log", util::FileUse::append, {});
  REQUIRE(f.ok());
  struct stat st;
  REQUIRE(::stat((t.path + "/new/dir").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  auto missing = util::open_owned(t.path + "/nothing", util::FileUse::read, {});
  CHECK_FALSE(missing.ok());
  CHECK(missing.absent);
  CHECK(missing.refusal.empty());
}

TEST_CASE("open_owned: a link the user made in their own directory is followed to a file that passes",
          "[owned_file]") {
  TempDir t;
  t.write("dotfiles/config.toml", "x");
  ::chmod(t.path.c_str(), 0700);
  REQUIRE(::symlink((t.path + "/dotfiles/config.toml").c_str(), (t.path + "/config.toml").c_str()) == 0);
  auto f = util::open_owned(t.path + "/config.toml", util::FileUse::read, {});
  CHECK(f.why() == "");
  CHECK(f.ok());
}

TEST_CASE("open_owned: a link in a directory others can write is not followed, the target untouched",
          "[owned_file]") {
  TempDir t;
  std::string victim = t.write("bashrc", "keep me\n");
  std::string shared = t.path + "/shared";
  REQUIRE(util::make_dirs(shared));
  ::chmod(shared.c_str(), 0777);
  REQUIRE(::symlink(victim.c_str(), (shared + "/host.jsonl").c_str()) == 0);
  auto f = util::open_owned(shared + "/host.jsonl", util::FileUse::append, {});
  CHECK_FALSE(f.ok());
  CHECK(contains(f.refusal, "writable by others"));
  // Even when the user shares the directory, a link there is never followed.
  auto s = util::open_owned(shared + "/host.jsonl", util::FileUse::append, util::SharedDirs{{shared}});
  CHECK_FALSE(s.ok());
  CHECK(contains(s.refusal, "symbolic link"));
  CHECK(util::read_file(victim).value_or("") == "keep me\n");
}

TEST_CASE("open_owned: a hard link to another file is refused", "[owned_file]") {
  TempDir t;
  std::string a = t.write("a", "x");
  REQUIRE(::link(a.c_str(), (t.path + "/b").c_str()) == 0);
  auto f = util::open_owned(t.path + "/b", util::FileUse::append, {});
  CHECK_FALSE(f.ok());
  CHECK(contains(f.refusal, "hard links"));
}

TEST_CASE("open_owned: a file owned by another user is refused unless its directory is shared", "[owned_file]") {
  if (::geteuid() != 0) EDASHIM_SKIP("needs root to give a file to another user");
  TempDir t;
  std::string log = t.write("logs/h.jsonl", "");
  REQUIRE(::chown(log.c_str(), 65534, 65534) == 0);
  auto f = util::open_owned(log, util::FileUse::read, {});
  CHECK_FALSE(f.ok());
  CHECK(contains(f.refusal, "uid 65534"));
  auto s = util::open_owned(log, util::FileUse::read, util::SharedDirs{{t.path + "/logs"}});
  CHECK(s.ok());
  CHECK(util::check_owned_dir(t.path + "/logs", {}).ok());
  REQUIRE(::chown((t.path + "/logs").c_str(), 65534, 65534) == 0);
  CHECK(contains(util::check_owned_dir(t.path + "/logs", {}).error(), "owned by"));
  CHECK(util::check_owned_dir(t.path + "/logs", util::SharedDirs{{t.path + "/logs"}}).ok());
}

TEST_CASE("open_owned: appending to a device is allowed, reading one is not", "[owned_file]") {
  auto w = util::open_owned("/dev/null", util::FileUse::append, {});
  CHECK(w.ok());
  auto r = util::open_owned("/dev/null", util::FileUse::read, {});
  CHECK_FALSE(r.ok());
  CHECK(contains(r.refusal, "not a regular file"));
}

TEST_CASE("make_owned_dir: creates the directory with the mode asked, refuses one made wider", "[owned_file]") {
  TempDir t;
  CHECK(util::make_owned_dir(t.path + "/exp", {}).ok());
  struct stat st;
  REQUIRE(::stat((t.path + "/exp").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  ::chmod((t.path + "/exp").c_str(), 0777);
  CHECK(contains(util::make_owned_dir(t.path + "/exp", {}).error(), "writable by others"));
}

// The directory rule's link case (report --log DIR, experiment directories, doctor): a link to
// the user's own directory is followed only where no one else could have put it.
TEST_CASE("check_owned_dir: a directory link in a directory others can write is not followed",
          "[owned_file]") {
  TempDir t;
  REQUIRE(util::make_dirs(t.path + "/mine"));
  ::chmod((t.path + "/mine").c_str(), 0700);
  for (mode_t mode : {mode_t(0777), mode_t(0770), mode_t(01777)}) {
    std::string shared = t.path + "/shared" + std::to_string(mode);
    REQUIRE(util::make_dirs(shared));
    REQUIRE(::chmod(shared.c_str(), mode) == 0);
    REQUIRE(::symlink((t.path + "/mine").c_str(), (shared + "/logs").c_str()) == 0);
    INFO("mode " << std::oct << mode);
    CHECK(contains(util::check_owned_dir(shared + "/logs", {}).error(), "is a symbolic link"));
  }
  // The same link where only the user can write is the user's own: followed to a directory that passes.
  std::string own = t.path + "/own";
  REQUIRE(util::make_dirs(own));
  ::chmod(own.c_str(), 0700);
  REQUIRE(::symlink((t.path + "/mine").c_str(), (own + "/logs").c_str()) == 0);
  CHECK(util::check_owned_dir(own + "/logs", {}).ok());
}
