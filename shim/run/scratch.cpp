#include "run/scratch.hpp"

#include <functional>

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"

namespace run {

int64_t required_free_bytes(int64_t min_free_mb, double min_free_percent, int64_t ram) {
  int64_t by_mb = min_free_mb * (int64_t(1) << 20);
  int64_t by_ram = ram > 0 ? int64_t(std::ceil(double(ram) * min_free_percent / 100.0)) : 0;
  return by_mb > by_ram ? by_mb : by_ram;
}

std::string user_temp_dir(const std::vector<std::string>& env) {
  for (const char* name : {"TMPDIR", "TMP", "TEMP"})
    for (const auto& e : env)
      if (e.size() > std::strlen(name) + 1 && util::starts_with(e, std::string(name) + "=")) return e;
  return "";
}

int64_t ram_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? int64_t(pages) * size : 0;
}

std::vector<std::string> scratch_candidates() {
  if (const char* t = std::getenv("EDASHIM_SCRATCH_BASES"); t && *t) {
    std::vector<std::string> out;
    for (auto& d : util::split(t, ':'))
      if (!d.empty() && d[0] == '/') out.push_back(d);
    return out;
  }
  std::vector<std::string> candidates = {"/dev/shm"};
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x == '/') candidates.push_back(x);
  return candidates;
}

ScratchBase find_scratch_base(int64_t min_free_bytes, const std::string& rule) {
  return find_scratch_base(min_free_bytes, rule, scratch_candidates());
}

ScratchBase find_scratch_base(int64_t min_free_bytes, const std::string& rule, const std::vector<std::string>& candidates) {
  std::vector<std::string> why;
  for (const auto& dir : candidates) {
    struct statfs fs;
    if (::statfs(dir.c_str(), &fs) != 0) {
      why.push_back(dir + ": " + std::strerror(errno));
      continue;
    }
    if (fs.f_type != TMPFS_MAGIC) {
      why.push_back(dir + ": not tmpfs");
      continue;
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      why.push_back(dir + ": not writable");
      continue;
    }
    int64_t free_bytes = int64_t(fs.f_bavail) * int64_t(fs.f_bsize);
    if (free_bytes < min_free_bytes) {
      why.push_back(dir + ": " + std::to_string(free_bytes >> 20) + " MiB free, " + rule + " asks for " +
                    std::to_string(min_free_bytes >> 20) + " MiB");
      continue;
    }
    std::string own = own_base(dir, ::getuid());
    BaseCheck check = check_own_base(own);
    if (check.refused) return {"", "", "scratch not used, TMPDIR left as it was: " + check.line(), check};
    if (!check.ok()) {
      why.push_back(check.what);
      continue;
    }
    return {dir, own, "tmpfs " + dir + " (" + std::to_string(free_bytes >> 20) + " MiB free), in " + own, {}};
  }
  return {"", "", "no usable tmpfs (" + util::join(why, "; ") + "); TMPDIR left as it was", {}};
}

std::string own_base(const std::string& shared_base, uid_t uid) {
  return shared_base + "/edashim-" + std::to_string(uid);
}

BaseCheck refuse_own_base(const std::string& own, const struct stat& st, uid_t me) {
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
  std::string owner = util::user_name(st.st_uid);  // "mallory (uid 1002)"
  std::string who = owner.substr(0, owner.find(" ("));
  bool mine = st.st_uid == me;
  // Another user's entry in a sticky base can be removed only by them or root.
  std::string removal = mine ? "remove it: rm " + own : "ask " + who + " or root to remove it: rm -r " + own;
  if (S_ISLNK(st.st_mode))
    return {own + " is a symbolic link owned by " + owner + ", not a directory of yours", removal, true};
  if (!S_ISDIR(st.st_mode))
    return {own + " is not a directory (owned by " + owner + ", mode " + mode + ")", removal, true};
  if (!mine)
    return {own + " is owned by " + owner + ", mode " + std::string(mode) + ", not by you: another user made it first",
            removal, true};
  return {};
}

BaseCheck refuse_shared_base(const std::string& base, const struct stat& st, uid_t me) {
  if (!S_ISDIR(st.st_mode)) return {base + " is not a directory", "", false};
  bool others_write = st.st_mode & (S_IWGRP | S_IWOTH);
  bool owner_ok = st.st_uid == me || st.st_uid == 0;
  if (owner_ok && (!others_write || (st.st_mode & S_ISVTX))) return {};
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
  return {base + " (owner " + util::user_name(st.st_uid) + ", mode " + mode + ") lets another user rename what is in it",
          "use a base owned by you or root, not writable by others unless sticky (chmod +t), in EDASHIM_SCRATCH_BASES",
          true};
}

namespace {

BaseCheck check_shared_base(const std::string& base) {
  struct stat st;
  if (::stat(base.c_str(), &st) != 0) return {base + ": " + std::strerror(errno), "", false};
  return refuse_shared_base(base, st, ::getuid());
}

}  // namespace

BaseCheck check_own_base(const std::string& own) {
  if (BaseCheck r = check_shared_base(util::dirname(own)); !r.ok()) return r;
  struct stat st;
  if (::lstat(own.c_str(), &st) != 0)
    return errno == ENOENT ? BaseCheck{} : BaseCheck{own + ": " + std::strerror(errno), "", false};
  return refuse_own_base(own, st, ::getuid());
}

BaseCheck make_own_base(const std::string& own) {
  if (BaseCheck r = check_shared_base(util::dirname(own)); !r.ok()) return r;
  if (::mkdir(own.c_str(), 0700) != 0 && errno != EEXIST)
    return {"cannot create " + own + ": " + std::strerror(errno), "", false};
  // Through a descriptor that cannot be a link: the mode is set on what was checked.
  util::Fd fd(::open(own.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0) {
    int err = errno;
    fd.reset();
    if (::lstat(own.c_str(), &st) == 0)
      if (BaseCheck r = refuse_own_base(own, st, ::getuid()); !r.ok()) return r;
    return {own + ": " + std::strerror(err), "", false};
  }
  BaseCheck r = refuse_own_base(own, st, ::getuid());
  if (r.ok() && (st.st_mode & 07777) != 0700 && ::fchmod(fd.get(), 0700) != 0)
    r = {"cannot set " + own + " to mode 0700: " + std::strerror(errno), "", false};
  // What util::check_owned_dir would ask (ours, a directory, not a link, no one else can write
  // it) was answered on the descriptor above: a second walk by path would only repeat it.
  return r;
}

std::string sweepable_prefix(uid_t uid) { return "edashim-" + std::to_string(uid) + "-"; }
std::string kept_prefix(uid_t uid) { return "edashim-kept-" + std::to_string(uid) + "-"; }

bool is_sweepable_name(const std::string& name, uid_t uid) {
  std::string prefix = sweepable_prefix(uid);
  // edashim-<uid>-<pid>-XXXXXX: the pid is part of the name for people, not for the sweep.
  return util::starts_with(name, prefix) && name.size() > prefix.size() && std::isdigit((unsigned char)name[prefix.size()]);
}

namespace {

// The exclusive lock of an existing directory, without waiting: what removing it takes; none when
// any process holds it (shared: a process of its run) or it is not ours to take (a link, another
// user's). Close-on-exec.
util::Fd try_lock(const std::string& path) {
  util::Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || st.st_uid != ::getuid() || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0)
    return util::Fd();
  return fd;
}

// True when `path` still names the directory open as `fd` (a sweep may have removed it, or
// removed it and another run made one of the same name, between our mkdtemp and flock).
bool still_there(const std::string& path, int fd) {
  struct stat a, b;
  return ::fstat(fd, &a) == 0 && a.st_nlink > 0 && ::lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

}  // namespace

util::Result<LockedDir> make_locked_dir(const std::string& base, const std::string& prefix) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    // The pid at a fixed width (pid_max is at most 2^22, 7 digits): the directory's name reaches
    // the tool's environment (TMPDIR, the probe's file), whose size bench keeps equal across runs
    // and arms; pids that wrap from 7 digits to 3 on a busy machine changed it by bytes.
    char pid[16];
    std::snprintf(pid, sizeof pid, "%07d", int(::getpid()));
    std::string templ = base + "/" + prefix + pid + "-XXXXXX";
    if (!::mkdtemp(templ.data()))  // mkdtemp creates it 0700
      return util::fail("cannot create a directory in " + base + ": " + std::strerror(errno));
    util::Fd fd(::open(templ.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd && (errno == EMFILE || errno == ENFILE)) {
      std::string why = "cannot lock " + templ + ": " + std::strerror(errno);
      ::rmdir(templ.c_str());
      return util::fail(why);
    }
    if (!fd) continue;  // swept before we opened it
    // Shared, as every process of the run that uses the directory holds it (probe/probe.c): a
    // sweep's exclusive lock conflicts with each of them. A sweep that locked it first fails this
    // one; one that removed it between mkdtemp and here is seen by still_there.
    if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0 && still_there(templ, fd.get())) return LockedDir{templ, std::move(fd), {}};
    // Else a sweep holds it (and deletes it) or already did: `fd` goes, take another name.
  }
  return util::fail("cannot lock a directory in " + base + " (each one was taken by a concurrent sweep)");
}

LockedDir make_scratch(const std::string& own, bool kept, std::string& note) {
  if (BaseCheck check = make_own_base(own); !check.ok()) {
    note = "scratch not used, TMPDIR left as it was: " + check.line();
    LockedDir none;
    if (check.refused) none.refused = check;
    return none;
  }
  auto made = make_locked_dir(own, kept ? kept_prefix(::getuid()) : sweepable_prefix(::getuid()));
  if (!made) {
    note = "scratch: " + made.error() + "; TMPDIR left as it was";
    return {};
  }
  LockedDir d = std::move(*made);
  // The tool's processes inherit the lock: a daemon the tool leaves keeps its TMPDIR (edashim
  // removes it at the end only if it can take the lock; else a later run's sweep does, once the
  // daemon has ended).
  hand_down(d.lock_fd);
  return d;
}

void hand_down(util::Fd& lock) {
  // Moved to 64 or above, out of the way of descriptors a tool numbers itself. Under a
  // `ulimit -n` of 64 or less it stays close-on-exec: a descriptor handed down there would take
  // one of the few the tool has (a dynamic tool then failed to load libc under ulimit -n 5).
  int high = ::fcntl(lock.get(), F_DUPFD, 64);
  if (high >= 0) lock.reset(high);  // F_DUPFD leaves close-on-exec clear
}

namespace {

// Gives the user search, read and write permission on `fd`'s directory when it lacks one (a
// read-only tree copied in with `cp -r`), so that what is in it can be removed. Only a directory
// of the user's own on device `dev` (removal does not cross into another filesystem either): a
// chmod of anyone else's would fail anyway, and it is not ours to change. True when it is one.
bool open_up(int fd, uid_t me, dev_t dev) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != me || st.st_dev != dev) return false;
  if ((st.st_mode & S_IRWXU) != S_IRWXU) (void)::fchmod(fd, (st.st_mode & 07777) | S_IRWXU);
  return true;
}

// A directory entry `name` of `parent` that is a directory of the user's, opened for listing
// without following a link; a directory they cannot read yet (mode 0300) is opened as a path,
// opened up through /proc/self/fd (chmod of what was opened, never of what a name now points
// to), then opened for listing. None for anything else.
util::Fd open_subdir(int parent, const char* name, uid_t me) {
  util::Fd fd(::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd || errno != EACCES) return fd;
  util::Fd path(::openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!path) return fd;
  struct stat st;
  if (::fstat(path.get(), &st) == 0 && st.st_uid == me) {
    std::string proc = "/proc/self/fd/" + std::to_string(path.get());
    (void)::chmod(proc.c_str(), (st.st_mode & 07777) | S_IRWXU);
    fd.reset(::openat(path.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  return fd;
}

// Opens up `fd`'s directory and every directory of the user's below it on device `dev`, depth
// first, to `depth` levels (two descriptors a level: a deeper tree keeps its deepest read-only
// levels).
void open_up_tree(int fd, uid_t me, dev_t dev, int depth) {
  if (!open_up(fd, me, dev) || depth <= 0) return;
  util::Fd listing(::dup(fd));
  DIR* d = listing ? ::fdopendir(listing.get()) : nullptr;
  if (!d) return;
  listing.release();  // closedir closes it
  while (auto* e = ::readdir(d)) {
    if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    util::Fd sub = open_subdir(fd, e->d_name, me);
    if (!sub) continue;
    open_up_tree(sub.get(), me, dev, depth - 1);
  }
  ::closedir(d);
}

// Removes the run's directory `dir`, whose lock `lock_fd` is held. What the tool left read-only
// in it (`cp -r` of a read-only tree) would stop the removal for good, for the run and for every
// sweep after it: the user's own directories in it are given u+rwx first, when the plain
// removal left something.
void remove_locked(const std::string& dir, int lock_fd) {
  if (util::remove_tree(dir)) return;
  struct stat st;
  if (::fstat(lock_fd, &st) != 0) return;
  open_up_tree(lock_fd, ::getuid(), st.st_dev, 64);
  util::remove_tree(dir);
}

}  // namespace

Removal remove_if_unlocked(const std::string& dir) {
  util::Fd lock = try_lock(dir);
  if (!lock) return util::is_directory(dir) ? Removal::in_use : Removal::gone;
  remove_locked(dir, lock.get());
  return Removal::removed;
}

size_t sweep_stale_scratch(const std::string& own, const std::function<void(const std::string&)>& before_removal,
                           size_t budget) {
  size_t removed = 0;
  uid_t uid = ::getuid();
  util::Fd dir_fd(::open(own.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (!dir_fd || ::fstat(dir_fd.get(), &st) != 0 || st.st_uid != uid || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return 0;
  DIR* d = ::fdopendir(dir_fd.get());
  if (!d) return 0;
  dir_fd.release();  // closedir closes it
  while (removed < budget) {
    auto* e = ::readdir(d);
    if (!e) break;
    std::string name = e->d_name;
    if (!is_sweepable_name(name, uid)) continue;
    std::string path = own + "/" + name;
    // Only what nobody locks: a live run (in any PID namespace) or a daemon it left holds it.
    if (util::Fd lock = try_lock(path)) {
      if (before_removal) before_removal(path);
      remove_locked(path, lock.get());
      ++removed;
    }
  }
  ::closedir(d);
  return removed;
}

}  // namespace run
