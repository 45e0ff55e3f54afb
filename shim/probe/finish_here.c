/* The run's line written by the run's own process, in it, at its normal end: see finish_here.h.
 * System calls only: the pure part (the record, the probe's records, the line) is line_end.c. */
#define _GNU_SOURCE
#include "probe/finish_here.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename */
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe/line_end.h"

#define PATH_CAP 4096
#define FILE_CAP (64u << 20) /* as edashim-finish reads them */
#define MAX_PROCESSES 4096

/* Memory of our own, not the tool's heap: the allocator is what the run measures, and another
 * thread may hold its lock while this one exits. */
struct area {
  char* p;
  size_t len;
};

static char* take(struct area* a, size_t len) {
  a->len = len;
  a->p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return a->p == MAP_FAILED ? (a->p = NULL) : a->p;
}

static void give_back(struct area* a) {
  if (a->p) munmap(a->p, a->len);
  a->p = NULL;
}

/* dir + "/" + name, or 0 when it does not fit. */
static int join(char* out, const char* dir, size_t dir_len, const char* name) {
  size_t n = strlen(name);
  if (dir_len + 1 + n >= PATH_CAP) return 0;
  memcpy(out, dir, dir_len);
  out[dir_len] = '/';
  memcpy(out + dir_len + 1, name, n + 1);
  return 1;
}

/* A file of this user's, read whole into an area of its own with a NUL after it. */
static int read_whole(const char* path, struct area* a, size_t* len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return 0;
  struct stat st;
  int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() && (size_t)st.st_size < FILE_CAP &&
           take(a, (size_t)st.st_size + 1) != NULL;
  size_t got = 0;
  while (ok && got < (size_t)st.st_size) {
    ssize_t n = read(fd, a->p + got, (size_t)st.st_size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  if (!ok) return 0;
  a->p[got] = 0;
  *len = got;
  return 1;
}

/* Whether dir is this user's private directory: not a link, nobody else may write it
 * (pipeline/finish.cpp's is_private_dir). */
static int is_private_dir(const char* dir) {
  struct stat st;
  return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* The exclusive lock of a directory of ours, without waiting (run/scratch.cpp's try_lock): -1
 * when any process holds it. */
static int try_lock_at(int at, const char* path) {
  int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_uid == getuid() && flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  close(fd);
  return -1;
}

/* The scratch, as run::remove_if_unlocked: -1 when a tree is left in it (edashim-finish
 * removes trees), else whether it is left in use. */
static int remove_scratch(const char* scratch) {
  int fd = try_lock_at(AT_FDCWD, scratch);
  if (fd < 0) {
    struct stat st;
    return stat(scratch, &st) == 0 && S_ISDIR(st.st_mode);
  }
  int removed = rmdir(scratch) == 0 || errno == ENOENT;
  close(fd);
  return removed ? 0 : -1;
}

/* Appends the line under the log's lock, to the file edashim checked before the exec (the
 * owned-file rule: util::open_owned), as runlog::append_line does. 0 for anything else: a log
 * replaced or due for rotation, a failed write (no part of the line left): edashim-finish. */
static int append(const struct edh_record* r, const char* line, size_t len) {
  if (!r->log_dev && !r->log_ino) return 0;
  int fd = open(r->log, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return 0;
  struct stat st, now;
  int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_dev == r->log_dev &&
           (unsigned long long)st.st_ino == r->log_ino;
  while (ok && flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) ok = 0;
  /* Rotated while we waited (the path names another file now), or due for rotation. */
  ok = ok && fstat(fd, &st) == 0 && stat(r->log, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino &&
       !(r->log_max_bytes > 0 && st.st_size > 0 && (long long)st.st_size + (long long)len > r->log_max_bytes);
  size_t done = 0;
  while (ok && done < len) {
    ssize_t n = write(fd, line + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (done > 0 && ftruncate(fd, lseek(fd, 0, SEEK_END) - (off_t)done) != 0) {
      }
      ok = 0;
    } else {
      done += (size_t)n;
    }
  }
  close(fd); /* lets go of the lock */
  return ok;
}

/* Whether a base holds a directory some run left (a sweepable name nobody locks) other than
 * `own`: the sweep is edashim-finish's (it completes lines and removes trees). */
static int left_behind(const char* base, const char* own) {
  int dir = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return 0;
  struct stat st;
  int found = 0;
  if (fstat(dir, &st) != 0 || st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) goto out;
  /* run::sweepable_prefix: "edashim-<uid>-" and a digit. */
  char prefix[48] = "edashim-";
  size_t plen = 8;
  char digits[24];
  int nd = 0;
  unsigned long uid = getuid();
  do digits[nd++] = (char)('0' + uid % 10);
  while (uid /= 10);
  while (nd > 0) prefix[plen++] = digits[--nd];
  prefix[plen++] = '-';
  char buf[8192];
  long got;
  while (!found && (got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
    for (long at = 0; at < got && !found;) {
      struct dirent64* e = (struct dirent64*)(buf + at);
      at += e->d_reclen;
      const char* name = e->d_name;
      if (strncmp(name, prefix, plen) != 0 || name[plen] < '0' || name[plen] > '9' || strcmp(name, own) == 0) continue;
      int fd = try_lock_at(dir, name);
      if (fd >= 0) found = 1, close(fd);
    }
  }
out:
  close(dir);
  return found;
}

int edashim_finish_here(const char* dir, size_t dir_len, const struct edh_figures* f) {
  char record_path[PATH_CAP], dir_path[PATH_CAP];
  if (dir_len >= PATH_CAP || !join(record_path, dir, dir_len, "unfinished")) return 0;
  memcpy(dir_path, dir, dir_len);
  dir_path[dir_len] = 0;
  struct area text = {0}, probe = {0}, out = {0}, processes = {0};
  int result = 0;
  size_t text_len = 0, probe_len = 0;
  struct edh_record r;
  static char no_records[1];
  if (!is_private_dir(dir_path) || !read_whole(record_path, &text, &text_len) ||
      !edh_parse_record(text.p, text_len, &r) || (*r.probe_file && !read_whole(r.probe_file, &probe, &probe_len)))
    goto out;
  char* records = *r.probe_file ? probe.p : no_records; /* the probe off: none */
  int scratch = -1;
  if (*r.scratch) scratch = r.keep_scratch ? 0 : remove_scratch(r.scratch);
  if (*r.scratch && scratch < 0) goto out;
  size_t cap = strlen(r.line) + 4 * probe_len + 65536;
  if (!take(&out, cap) || !take(&processes, MAX_PROCESSES * sizeof(struct edh_process))) goto out;
  size_t len = edh_line(&r, f, scratch, records, probe_len, (struct edh_process*)processes.p, MAX_PROCESSES, out.p,
                        cap - 1);
  if (len == 0) goto out;
  out.p[len++] = '\n';
  if (!append(&r, out.p, len)) goto out;

  /* The line is in the log: from here the record must not be finished again. */
  const char* own = dir_path + dir_len;
  while (own > dir_path && own[-1] != '/') --own;
  int sweep = r.more_sweep_bases;
  for (int i = 0; i < r.n_sweep_bases && !sweep; ++i) sweep = left_behind(r.sweep_bases[i], own);
  if (sweep) {
    char finished[PATH_CAP];
    result = join(finished, dir, dir_len, "finished") && rename(record_path, finished) == 0 ? 2 : 1;
    if (result == 1) unlink(record_path);
    goto out;
  }
  unlink(record_path);
  if (strncmp(r.probe_file, dir_path, dir_len) == 0 && r.probe_file[dir_len] == '/') unlink(r.probe_file);
  rmdir(dir_path); /* what else is in it, a later sweep removes */
  result = 1;
out:
  give_back(&text);
  give_back(&probe);
  give_back(&out);
  give_back(&processes);
  return result;
}
