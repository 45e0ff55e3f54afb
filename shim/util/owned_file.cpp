#include "util/owned_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace util {

namespace {

// Links followed before giving up: enough for a dotfile manager's chain, not for a loop.
constexpr int kMaxLinks = 8;

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
  return buf;
}

bool ours(uid_t owner, uid_t me) { return owner == me || owner == 0; }

// What lets the user accept a shared place: one sentence, the same in every refusal.
std::string shared_hint(const std::string& dir, std::string_view how_to_share) {
  if (how_to_share.empty()) return "it must be yours alone";
  return "if other users share " + shell_quote(dir) + " on purpose, " + std::string(how_to_share);
}

// The canonical directory a path's file is in, for the shared_dirs comparison.
std::string canonical_dir(int dirfd, const std::string& fallback) {
  return fd_path(dirfd).value_or(fallback);
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char buf[4096];
  if (!::getcwd(buf, sizeof buf)) return path;
  return std::string(buf) + "/" + path;
}

struct Located {
  Fd dirfd;
  std::string dir;        // as given (for messages)
  std::string base;
  std::string canonical;  // the directory's canonical path
  bool shared = false;
  struct stat st {};
};

// Opens the directory holding `path` and applies the directory rule to it.
OwnedFile locate(const std::string& path, const SharedDirs& shared, Located& at) {
  OwnedFile out;
  if (path.empty()) {
    out.absent = true;
    out.error = "no file named";
    return out;
  }
  std::string full = absolute(path);
  at.dir = dirname(full);
  at.base = basename(full);
  if (at.base.empty() || at.base == "." || at.base == "..") {
    out.error = shell_quote(path) + " names no file";
    return out;
  }
  at.dirfd.reset(::open(at.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!at.dirfd) {
    if (errno == ENOENT || errno == ENOTDIR) out.absent = true;
    out.errnum = errno;
    out.error = "cannot open directory " + shell_quote(at.dir) + ": " + std::strerror(errno);
    return out;
  }
  if (::fstat(at.dirfd.get(), &at.st) != 0) {
    out.error = "cannot stat " + shell_quote(at.dir) + ": " + std::strerror(errno);
    return out;
  }
  // A readlink per file opened, on every run: only when there is a shared directory to compare.
  if (!shared.dirs.empty()) {
    at.canonical = canonical_dir(at.dirfd.get(), at.dir);
    at.shared = shared.covers(at.canonical);
  }
  out.refusal = refuse_dir(at.dir, at.st, ::getuid(), at.shared, shared.how_to_share);
  return out;
}

// A link in `at` whose target the user chose: owned by the user or root, in a directory only
// they can write. Returns the target (relative to the link's directory, made absolute), or "" with
// the refusal set.
std::string follow_link(const Located& at, const std::string& path, std::string& refusal) {
  struct stat link;
  if (::fstatat(at.dirfd.get(), at.base.c_str(), &link, AT_SYMLINK_NOFOLLOW) != 0) {
    refusal = shell_quote(path) + ": " + std::strerror(errno);
    return "";
  }
  uid_t me = ::getuid();
  bool dir_only_theirs = !(at.st.st_mode & (S_IWGRP | S_IWOTH));
  if (!ours(link.st_uid, me) || !ours(at.st.st_uid, me) || !dir_only_theirs) {
    refusal = shell_quote(path) + " is a symbolic link owned by " + user_name(link.st_uid) + " in " +
              shell_quote(at.dir) + " (mode " + octal_mode(at.st.st_mode) +
              "), where another user could have put it: not followed (name the file itself)";
    return "";
  }
  char target[4096];
  ssize_t n = ::readlinkat(at.dirfd.get(), at.base.c_str(), target, sizeof target - 1);
  if (n <= 0) {
    refusal = shell_quote(path) + ": cannot read the link: " + std::strerror(errno);
    return "";
  }
  std::string t(target, size_t(n));
  return t[0] == '/' ? t : at.dir + "/" + t;
}

OwnedFile open_at_depth(const std::string& path, FileUse use, const SharedDirs& shared, mode_t create_mode, int depth) {
  Located at;
  OwnedFile out = locate(path, shared, at);
  if (!at.dirfd && use == FileUse::append && out.absent) {
    // The first run: make the directory, 0700 (the rule then holds for it by construction).
    if (!make_dirs(dirname(absolute(path)), 0700)) {
      out.error = "cannot create " + shell_quote(dirname(absolute(path))) + ": " + std::strerror(errno);
      out.absent = false;
      return out;
    }
    out = locate(path, shared, at);
  }
  if (!at.dirfd || !out.refusal.empty()) {
    if (use == FileUse::append) out.absent = false;
    return out;
  }
  int flags = O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
  flags |= use == FileUse::read ? O_RDONLY : (O_WRONLY | O_APPEND | O_CREAT);
  Fd fd(::openat(at.dirfd.get(), at.base.c_str(), flags, use == FileUse::append && at.shared ? (create_mode | 0060) : create_mode));
  // One of this process's own descriptors (/dev/stderr leads here): a link no one else can
  // have put there, to what may be a pipe, which has no path to follow.
  if (!fd && errno == ELOOP && (at.dir == "/proc/self/fd" || at.dir == "/dev/fd"))
    fd.reset(::openat(at.dirfd.get(), at.base.c_str(), flags & ~O_NOFOLLOW));
  // ELOOP: a link (O_NOFOLLOW). EACCES can be one too: fs.protected_symlinks refuses another
  // user's link in a sticky directory before O_NOFOLLOW is looked at; say what it is.
  struct stat lst;
  if (!fd && (errno == ELOOP || errno == EACCES) &&
      (errno == ELOOP || (::fstatat(at.dirfd.get(), at.base.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode)))) {
    std::string target = depth < kMaxLinks ? follow_link(at, path, out.refusal) : "";
    if (depth >= kMaxLinks) out.refusal = shell_quote(path) + ": more than 8 symbolic links in a row";
    at.dirfd.reset();  // not held through the links followed
    if (target.empty()) return out;
    return open_at_depth(target, use, shared, create_mode, depth + 1);
  }
  if (!fd) {
    out.absent = errno == ENOENT;
    out.errnum = errno;
    out.error = "cannot open " + shell_quote(path) + ": " + std::strerror(errno);
    return out;
  }
  at.dirfd.reset();
  if (::fstat(fd.get(), &out.st) != 0) {
    out.error = "cannot stat " + shell_quote(path) + ": " + std::strerror(errno);
    return out;
  }
  // Appending to a device or a pipe (log = "/dev/null", a FIFO a collector reads) loses nothing of
  // the user's and is never rotated; reading one could block a run, so only append accepts it.
  bool stream = use == FileUse::append && (S_ISCHR(out.st.st_mode) || S_ISFIFO(out.st.st_mode));
  out.refusal = stream ? "" : refuse_file(path, out.st, ::getuid(), at.shared, shared.how_to_share);
  if (!out.refusal.empty()) return out;
  if (use == FileUse::read) {
    // Reading is not to block: O_NONBLOCK only served the open (a FIFO is refused above anyway).
    int fl = ::fcntl(fd.get(), F_GETFL);
    if (fl >= 0) ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK);
  }
  out.fd = std::move(fd);
  return out;
}

}  // namespace

bool SharedDirs::covers(const std::string& canonical_dir) const {
  for (const auto& d : dirs) {
    std::string c = real_path(d).value_or(d);
    while (c.size() > 1 && c.back() == '/') c.pop_back();
    if (canonical_dir == c || (canonical_dir.size() > c.size() && starts_with(canonical_dir, c) &&
                               (c == "/" || canonical_dir[c.size()] == '/')))
      return true;
  }
  return false;
}

std::string user_name(uid_t uid) {
  std::string id = std::to_string(uid);
  auto f = passwd_fields(uid);
  return f.empty() ? "uid " + id : f[0] + " (uid " + id + ")";
}

std::string refuse_file(const std::string& path, const struct stat& st, uid_t me, bool shared, std::string_view how_to_share) {
  std::string q = shell_quote(path);
  if (!S_ISREG(st.st_mode)) return q + " is not a regular file: only regular files are read or appended to";
  if (st.st_nlink != 1)
    return q + " has " + std::to_string(st.st_nlink) +
           " hard links: another name could be another user's way to it (copy it to a file of its own)";
  if (shared) return "";
  if (!ours(st.st_uid, me))
    return q + " is owned by " + user_name(st.st_uid) + ", not by you (mode " + octal_mode(st.st_mode) +
           "): another user decides what it says; " + shared_hint(dirname(path), how_to_share);
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return q + " is writable by " + ((st.st_mode & S_IWOTH) ? "others" : "its group") + " (owner " + user_name(st.st_uid) +
           ", mode " + octal_mode(st.st_mode) + "): fix with chmod go-w " + q + ", or " + shared_hint(dirname(path), how_to_share);
  return "";
}

std::string refuse_dir(const std::string& dir, const struct stat& st, uid_t me, bool shared, std::string_view how_to_share) {
  std::string q = shell_quote(dir);
  if (!S_ISDIR(st.st_mode)) return q + " is not a directory";
  if (shared) return "";
  bool sticky = st.st_mode & S_ISVTX;
  if (!ours(st.st_uid, me))
    return "directory " + q + " is owned by " + user_name(st.st_uid) + ", not by you (mode " + octal_mode(st.st_mode) +
           "): its owner can replace any file in it; " + shared_hint(dir, how_to_share);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !sticky)
    return "directory " + q + " is writable by " + ((st.st_mode & S_IWOTH) ? "others" : "its group") + " (owner " +
           user_name(st.st_uid) + ", mode " + octal_mode(st.st_mode) + "), who can replace any file in it: fix with " +
           "chmod go-w " + q + ", or " + shared_hint(dir, how_to_share);
  return "";
}

OwnedFile open_owned(const std::string& path, FileUse use, const SharedDirs& shared, mode_t create_mode) {
  return open_at_depth(path, use, shared, create_mode, 0);
}

OwnedText read_owned(const std::string& path, const SharedDirs& shared, size_t limit) {
  OwnedText out;
  OwnedFile f = open_owned(path, FileUse::read, shared);
  if (!f.ok()) {
    out.absent = f.absent;
    out.refusal = f.refusal;
    out.error = f.absent ? "" : f.error;
    out.errnum = f.errnum;
    return out;
  }
  out.real = fd_path(f.fd.get()).value_or(path);
  out.st = f.st;
  if (size_t(f.st.st_size) > limit) {
    out.errnum = EFBIG;
    out.error = shell_quote(path) + " is larger than " + std::to_string(limit) + " bytes";
  } else {
    char buf[65536];
    while (true) {
      ssize_t n = ::read(f.fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 || out.content.size() + size_t(n) > limit) {
        out.errnum = n < 0 ? errno : EFBIG;
        out.error = shell_quote(path) + ": " + (n < 0 ? std::strerror(errno) : "larger than " + std::to_string(limit) + " bytes");
        out.content.clear();
        break;
      }
      if (n == 0) break;
      out.content.append(buf, size_t(n));
    }
  }
  return out;
}

Status check_owned_dir(const std::string& dir, const SharedDirs& shared, bool missing_ok) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) {
    if (missing_ok && errno == ENOENT) return Ok{};
    return fail("cannot use directory " + shell_quote(dir) + ": " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    // Where the link sits decides whether it is the user's: the same rule as for a file's link.
    struct stat parent;
    std::string up = dirname(absolute(dir));
    if (::stat(up.c_str(), &parent) != 0 || !ours(st.st_uid, ::getuid()) || !ours(parent.st_uid, ::getuid()) ||
        (parent.st_mode & (S_IWGRP | S_IWOTH)))
      return fail(shell_quote(dir) + " is a symbolic link owned by " + user_name(st.st_uid) + " in " + shell_quote(up) +
                ", where another user could have put it: not followed (name the directory itself)");
    if (::stat(dir.c_str(), &st) != 0) return fail("cannot use directory " + shell_quote(dir) + ": " + std::strerror(errno));
  }
  std::string canonical = real_path(dir).value_or(dir);
  if (auto refused = refuse_dir(dir, st, ::getuid(), shared.covers(canonical), shared.how_to_share); !refused.empty())
    return fail(refused);
  return Ok{};
}

Status make_owned_dir(const std::string& dir, const SharedDirs& shared, mode_t mode) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) return fail("cannot use directory " + shell_quote(dir) + ": " + std::strerror(errno));
    if (!make_dirs(dirname(absolute(dir)), 0700) || (::mkdir(dir.c_str(), mode) != 0 && errno != EEXIST))
      return fail("cannot create " + shell_quote(dir) + ": " + std::strerror(errno));
  }
  return check_owned_dir(dir, shared);
}

}  // namespace util
