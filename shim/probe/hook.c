/* The exec hook, part of libedashim_probe.so, which edashim preloads whenever it preloads
 * anything (with the probe's records on or off). Before a process of an edashim run starts a
 * program (the exec family, fexecve, execveat, posix_spawn, posix_spawnp) it decides:
 *  - route: the program's file name is a tool edashim has a profile for (__EDASHIM_TOOLS), or the
 *    program is the file a [tool.NAME] path names (__EDASHIM_PATHS, "NAME=PATH" lines), and the
 *    kernel would start that file (would_start): it is started through edashim (__EDASHIM_EXE)
 *    with __EDASHIM_ROUTE naming the original path (and __EDASHIM_ROUTE_NAME the NAME), argv
 *    unchanged, so the tool gets its own profile and log line. A `#!` script whose interpreter
 *    is such a tool is routed as the kernel would start it: the interpreter, its one argument,
 *    the script's path as called, then argv[1..];
 *  - strip: the program is started by a loader edashim's libraries cannot be shown to load
 *    under (another glibc older than they need, musl, another class), or it is static (it loads
 *    nothing, and what it starts would inherit LD_PRELOAD unseen by the hook), or ld.so is asked
 *    to list what it loads (LD_TRACE_LOADED_OBJECTS: ldd): edashim's entries (__EDASHIM_OURS)
 *    leave LD_PRELOAD, the user's stay, and a record says why (not for ldd);
 *  - leave out: where nothing records and only this library is preloaded (a flow's top), a
 *    program that can start no other (edh_may_start_programs) gets LD_PRELOAD without it: it
 *    needs no hook, and loading one is most of what the hook costs a short process;
 *  - unreadable: this process is no longer who it started as (setuid, setgid: runuser, su or
 *    setpriv below a root run) and that identity cannot open some of edashim's entries (under
 *    root's 0700 home): they leave LD_PRELOAD, since ld.so would print an ERROR line in every
 *    process below and load nothing of them anyway;
 *  - pass: everything else, untouched. EDASHIM=off in the environment passes everything, and
 *    so does edashim itself when it is a dynamic build (launcher_mark.h).
 *
 * Rules (this runs in vfork children and in any program): no malloc, no stdio, stack buffers
 * only; errno and the return value are exactly those of the real call. Which functions, and
 * resolving the real ones with dlsym(RTLD_NEXT), follow Bear's intercept library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher_mark.h"
#include "loader_check.h"
#include "scratch_hold.h"

#define CAP 4096
#define MAX_ENV 4096  /* the new environment is a stack array: 32 KiB at most; larger ones pass untouched */
#define MAX_ARGS 65536
#define MAX_SCRIPT_ARGS 16384 /* a routed script's new argv is a stack array too: 128 KiB at most */
#define MAX_INTERP 4          /* the kernel follows #! interpreters that deep, no further */

extern char** environ;

typedef int (*execve_fn)(const char*, char* const[], char* const[]);
typedef int (*spawn_fn)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                        char* const[], char* const[]);
typedef int (*fexecve_fn)(int, char* const[], char* const[]);
typedef int (*execveat_fn)(int, const char*, char* const[], char* const[], int);

static execve_fn real_execve_p, real_execvpe_p;
static spawn_fn real_spawn_p, real_spawnp_p;
static fexecve_fn real_fexecve_p;
static execveat_fn real_execveat_p;

/* Resolved at the first call, not at load: most processes the library loads into start no
 * program, and four lookups in every one's constructor were ~2.5 us of each start. A first call
 * in a fork()ed child is safe: glibc's fork resets the loader's lock in the child (a lock another
 * thread of the parent held at the fork would otherwise never be released there); a vfork child
 * shares the parent's lock, which its holder releases. */
static void* real_of(void** slot, const char* name) {
  if (!*slot) *slot = dlsym(RTLD_NEXT, name);
  return *slot;
}

enum kind { K_EXECVE, K_EXECVPE, K_SPAWN, K_SPAWNP, K_FEXECVE, K_EXECVEAT };

struct call {
  enum kind kind;
  const char* file;  /* NULL for fexecve */
  char* const* argv;
  char* const* envp;
  pid_t* pid;
  const posix_spawn_file_actions_t* actions;
  const posix_spawnattr_t* attr;
  int fd;    /* fexecve's descriptor, execveat's directory */
  int flags; /* execveat's */
};

static int call_real(const struct call* c, enum kind kind, const char* file, char* const* argv, char* const* envp) {
  if (kind != K_SPAWN && kind != K_SPAWNP) edashim_keep_scratch_held(envp);
  switch (kind) {
    case K_EXECVE:
      if (!real_of((void**)&real_execve_p, "execve")) break;
      return real_execve_p(file, argv, envp);
    case K_EXECVPE:
      if (!real_of((void**)&real_execvpe_p, "execvpe")) break;
      return real_execvpe_p(file, argv, envp);
    case K_SPAWN:
      if (!real_of((void**)&real_spawn_p, "posix_spawn")) return ENOSYS;
      return real_spawn_p(c->pid, file, c->actions, c->attr, argv, envp);
    case K_SPAWNP:
      if (!real_of((void**)&real_spawnp_p, "posix_spawnp")) return ENOSYS;
      return real_spawnp_p(c->pid, file, c->actions, c->attr, argv, envp);
    case K_FEXECVE:
      if (!real_of((void**)&real_fexecve_p, "fexecve")) break;
      return real_fexecve_p(c->fd, argv, envp);
    case K_EXECVEAT:
      if (!real_of((void**)&real_execveat_p, "execveat")) break;
      return real_execveat_p(c->fd, file, argv, envp, c->flags);
  }
  errno = ENOSYS;
  return -1;
}

static const char* env_get(char* const* env, const char* name) {
  size_t n = strlen(name);
  for (; env && *env; ++env)
    if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') return *env + n + 1;
  return NULL;
}

static const char* base_of(const char* path) {
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* EDASHIM=off (0, false, no): nothing of edashim applies to this exec. */
static int switched_off(const char* v) {
  if (!v) return 0;
  return !strcasecmp(v, "off") || !strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no");
}

/* `name` is one of the colon-separated entries of `list`. */
static int in_list(const char* list, const char* name, size_t n) {
  for (const char* p = list; *p;) {
    const char* e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

static int same_file(const char* a, const char* b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The file `st` describes is edashim's own (__EDASHIM_EXE): a link on PATH, run by the kernel. */
static int is_edashim(const struct stat* st, const char* exe) {
  struct stat se;
  return exe && stat(exe, &se) == 0 && se.st_dev == st->st_dev && se.st_ino == st->st_ino;
}

/* The effective ids may execute `path`, as the kernel checks at exec (not access()'s real ids;
 * a noexec mount refuses too). */
static int may_execute(const char* path) { return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) == 0; }

/* What execvp would run for `file`: a PATH search like glibc's (the caller's PATH), which goes on
 * past a directory or a file it may not execute. The found file's stat in *st. */
static int path_search(const char* file, char* out, struct stat* st) {
  const char* path = env_get(environ, "PATH");
  if (!path) path = "/bin:/usr/bin";
  for (const char* p = path;;) {
    const char* e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (edh_join(out, CAP, len ? p : ".", len ? len : 1, file) && stat(out, st) == 0 && S_ISREG(st->st_mode) &&
        may_execute(out))
      return 1;
    if (!e) return 0;
    p = e + 1;
  }
}

/* Whether the kernel would start the file at `path` itself: a regular file the effective ids may
 * execute, whose first bytes are `#!` or ELF's magic. Anything else fails its exec (ENOENT for a
 * PATH candidate that is not there, EACCES for a directory, ENOEXEC) or is run by execvp under
 * /bin/sh, and the caller goes on as it does directly (the next PATH directory, its `except
 * FileNotFoundError`): such a file is not routed. An unreadable one cannot be told: not either. */
static int would_start(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !may_execute(path)) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return 0;
  char magic[4];
  long n = edh_read_fd(&fd, 0, magic, sizeof magic);
  close(fd);
  return n > 0 && edh_starts_as_program(magic, (size_t)n);
}

/* Copies `env` into `out`, leaving out entries that start with `drop` ("NAME=", or a prefix of
 * several names), and appends `extra` and `extra2` when not NULL. */
static void copy_env(char* const* env, char** out, const char* drop, char* extra, char* extra2) {
  size_t k = 0, n = drop ? strlen(drop) : 0;
  for (; env && *env; ++env)
    if (!drop || strncmp(*env, drop, n) != 0) out[k++] = *env;
  if (extra) out[k++] = extra;
  if (extra2) out[k++] = extra2;
  out[k] = NULL;
}

/* The NAME of the "NAME=PATH" line of `paths` whose PATH is the file `target`, copied into
 * `name` (cap bytes); 0 for none. The same string, or the same file under the same file name:
 * a stat only for a file named like one of the paths. */
static int routed_by_path(const char* paths, const char* target, char* name, size_t cap) {
  const char* tbase = base_of(target);
  for (const char* line = paths; *line;) {
    const char* end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char* eq = memchr(line, '=', len);
    char path[CAP];
    size_t plen = eq ? len - (size_t)(eq + 1 - line) : 0;
    if (eq && eq > line && plen > 0 && plen < sizeof path && (size_t)(eq - line) < cap) {
      memcpy(path, eq + 1, plen);
      path[plen] = 0;
      if (strcmp(path, target) == 0 || (strcmp(base_of(path), tbase) == 0 && same_file(target, path))) {
        memcpy(name, line, (size_t)(eq - line));
        name[eq - line] = 0;
        return 1;
      }
    }
    if (!end) break;
    line = end + 1;
  }
  return 0;
}

/* Appends the entry p[0..n) to the ':'-separated list out (*len long, cap bytes): 0 when it does
 * not fit. */
static int append_entry(char* out, size_t* len, size_t cap, const char* p, size_t n) {
  if (*len + n + 2 > cap) return 0;
  if (*len) out[(*len)++] = ':';
  memcpy(out + *len, p, n);
  *len += n;
  return 1;
}

/* LD_PRELOAD's value without the entries listed in `ours`, into out; 0 when it does not fit. */
static int strip_preload(const char* value, const char* ours, char* out, size_t cap) {
  size_t len = 0;
  for (const char* p = value; *p;) {
    while (*p == ':' || *p == ' ') ++p;
    const char* e = p;
    while (*e && *e != ':' && *e != ' ') ++e;
    size_t n = (size_t)(e - p);
    if (n && !in_list(ours, p, n) && !append_entry(out, &len, cap, p, n)) return 0;
    p = e;
  }
  out[len] = 0;
  return 1;
}

/* A record line for the probe's file (probe/probe.c describes the format):
 *   L <pid> <program> <loader> <missing version> <what it has>
 * A static program's has an empty loader (and missing and has): it loads nothing. */
static void record_not_applied(char* const* env, const char* program, const struct edh_verdict* v) {
  const char* file = env_get(env, "__EDASHIM_NOTES");
  if (!file || file[0] != '/') return;
  char line[3 * CAP];
  size_t len = 0;
  const char* parts[5] = {program, v->loader, v->missing, v->has, NULL};
  line[len++] = 'L';
  line[len++] = '\t';
  char num[24];
  int k = 0;
  unsigned long pid = (unsigned long)getpid();
  do num[k++] = (char)('0' + pid % 10), pid /= 10;
  while (pid);
  while (k) line[len++] = num[--k];
  for (int i = 0; parts[i]; ++i) {
    line[len++] = '\t';
    for (const char* s = parts[i]; *s && len + 4 < sizeof line; ++s) {
      char c = *s;
      if (c == '\\' || c == '\t' || c == '\n') {
        line[len++] = '\\';
        c = c == '\t' ? 't' : c == '\n' ? 'n' : '\\';
      }
      line[len++] = c;
    }
  }
  line[len++] = '\n';
  int fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  if (write(fd, line, len) < 0) {
  }
  close(fd);
}

enum decision { PASS, ROUTE, STRIP, LEAVE };

/* What a file needs, remembered by identity and version: make starts the same few programs
 * thousands of times, and a stat (free when the PATH search made it) is a third of the open,
 * read and close that looking at the file again costs. A few entries, taken under a flag: a
 * thread or vfork child that finds them busy just looks at the file. Of a `#!` script only its
 * line is remembered: what it needs is its interpreter's, looked at every time (it may be a
 * tool to route, by the environment's list, or be replaced without the script changing). */
enum plain {
  UNKNOWN = 0,
  PLAIN,         /* the system's loader: nothing to do (not asked whether it starts programs) */
  PLAIN_CHECKED, /* nothing to do, and nothing to leave out: edashim's own static program, a
                    file the kernel will not start, or one of the system's loader that may
                    start programs */
  LEAF,          /* the system's loader, and it starts no program: the hook can stay out */
  STATIC,        /* a static program (not edashim): edashim's entries leave its LD_PRELOAD */
  SCRIPT         /* a #! script, its line kept: the open, read and close saved */
};
struct file_key {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
};
#define PLAIN_SLOTS 4
static struct {
  struct file_key key;
  enum plain kind;
  char has_arg;
  char line[EDH_SHEBANG_BUF]; /* SCRIPT: the interpreter, NUL, its argument (both fit: 256 bytes) */
} g_plain[PLAIN_SLOTS];
static unsigned g_plain_next;
static char g_plain_busy;

static struct file_key key_of(const struct stat* st) {
  struct file_key k;
  memset(&k, 0, sizeof k);
  k.dev = st->st_dev;
  k.ino = st->st_ino;
  k.size = st->st_size;
  k.mtime = st->st_mtim;
  k.ctime = st->st_ctim;
  return k;
}

/* What is remembered of the file `st` describes; a script's #! line into *sb. */
static enum plain known_plain(const struct stat* st, struct edh_shebang* sb) {
  if (__atomic_test_and_set(&g_plain_busy, __ATOMIC_ACQUIRE)) return UNKNOWN;
  struct file_key k = key_of(st);
  enum plain kind = UNKNOWN;
  for (int i = 0; i < PLAIN_SLOTS && !kind; ++i)
    if (g_plain[i].kind && memcmp(&k, &g_plain[i].key, sizeof k) == 0) {
      kind = g_plain[i].kind;
      if (kind != SCRIPT) continue;
      size_t n = strlen(g_plain[i].line);
      memcpy(sb->interp, g_plain[i].line, n + 1);
      strcpy(sb->arg, g_plain[i].line + n + 1);
      sb->has_arg = g_plain[i].has_arg;
    }
  __atomic_clear(&g_plain_busy, __ATOMIC_RELEASE);
  return kind;
}

/* `sb`: a script's #! line, for kind SCRIPT. */
static void remember(const struct stat* st, enum plain kind, const struct edh_shebang* sb) {
  size_t n = sb ? strlen(sb->interp) : 0, a = sb ? strlen(sb->arg) : 0;
  if ((kind == SCRIPT) != (sb != NULL) || n + a + 2 > sizeof g_plain[0].line) return;
  if (__atomic_test_and_set(&g_plain_busy, __ATOMIC_ACQUIRE)) return;
  struct file_key k = key_of(st);
  unsigned i = 0;
  while (i < PLAIN_SLOTS && !(g_plain[i].kind && memcmp(&k, &g_plain[i].key, sizeof k) == 0)) ++i;
  if (i == PLAIN_SLOTS) i = g_plain_next++ % PLAIN_SLOTS;  /* a file seen again keeps its place */
  g_plain[i].key = k;
  g_plain[i].kind = kind;
  if (sb) {
    memcpy(g_plain[i].line, sb->interp, n + 1);
    memcpy(g_plain[i].line + n + 1, sb->arg, a + 1);
    g_plain[i].has_arg = (char)sb->has_arg;
  }
  __atomic_clear(&g_plain_busy, __ATOMIC_RELEASE);
}

static void remember_plain(const struct stat* st, enum plain kind) { remember(st, kind, NULL); }

/* The environment variables a decision may add, and the new argv of a routed script. */
struct work {
  char resolved[CAP];  /* the PATH search's result; for a descriptor, the file's name */
  char fdpath[64];     /* /proc/self/fd/N */
  char route[CAP + 32];
  char route_name[288];  /* __EDASHIM_ROUTE_NAME=NAME */
  char preload[CAP * 2 + 16];
  char unreadable[CAP * 2];  /* edashim's entries this identity cannot open (unreadable_of) */
  struct edh_verdict v;
  const char* exe;
  struct edh_shebang sb[MAX_INTERP]; /* the #! lines followed, the script's first */
  const char* prefix[2 * MAX_INTERP + 1]; /* a routed script's argv before the caller's argv[1..] */
  int nprefix;                            /* 0: argv unchanged */
};

/* The first bytes of a file, read once: the headers and PT_INTERP are almost always there, and
 * a pread per program header cost ~15 system calls on every exec. */
struct head {
  int fd;
  long len;
  char buf[4096];  /* a small program's symbol and string tables too */
};

static long read_head(void* ctx, unsigned long long off, void* buf, unsigned long n) {
  struct head* h = (struct head*)ctx;
  if (h->len >= 0 && off + n <= (unsigned long long)h->len) {
    memcpy(buf, h->buf + off, n);
    return (long)n;
  }
  return edh_read_fd(&h->fd, off, buf, n);
}

/* What the file at `path` is (edh_kind): for EDH_DYNAMIC its loader in v->loader, for EDH_SCRIPT
 * its #! line in *sb. With `leaf` not NULL, *leaf says whether a dynamic program starts none of
 * its own (edh_may_start_programs). EDH_OTHER when it cannot be read. */
static int look_at(const char* path, struct edh_verdict* v, struct edh_shebang* sb, int* leaf) {
  struct head h;
  h.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (h.fd < 0) return EDH_OTHER;
  /* One read: a regular file's is short only at its end (a script's second read found nothing). */
  h.len = pread(h.fd, h.buf, sizeof h.buf, 0);
  int kind = edh_exec_kind(read_head, &h, v->loader, sizeof v->loader);
  if (kind == EDH_SCRIPT && !edh_parse_shebang(h.buf, h.len > 0 ? (size_t)h.len : 0, sb)) kind = EDH_OTHER;
  if (leaf) *leaf = kind == EDH_DYNAMIC && !edh_may_start_programs(read_head, &h);
  close(h.fd);
  return kind;
}

/* `env` without edashim's entries in LD_PRELOAD (the user's stay, as they are) into newenv;
 * 0 when there is no LD_PRELOAD or it does not fit (nothing changed then). */
static int without_ours(char* const* env, char** newenv, struct work* w, const char* ours) {
  const char* preload = NULL;
  for (char* const* e = env; *e; ++e)
    if (strncmp(*e, "LD_PRELOAD=", 11) == 0) preload = *e + 11;  /* ld.so reads the last */
  if (!preload) return 0;
  memcpy(w->preload, "LD_PRELOAD=", 11);
  if (!strip_preload(preload, ours, w->preload + 11, sizeof w->preload - 11)) return 0;
  copy_env(env, newenv, "LD_PRELOAD=", w->preload[11] ? w->preload : NULL, NULL);
  return 1;
}

/* A program that starts none of its own gets nothing of edashim when nothing records (a flow's
 * top, whose processes write no records): its LD_PRELOAD without this library, so it pays no
 * library load (the most of the hook's cost on short recipes). Only when this library is all
 * LD_PRELOAD holds: an allocator edashim preloaded stays (a tool's children keep its allocator,
 * with `probe = false` too), and so does a user's preload, with this library. */
static enum decision leave_out(char* const* env, char** newenv, struct work* w, const char* ours) {
  if (strchr(ours, ':')) return PASS;  /* ours is more than this library: an allocator */
  const char* preload = NULL;
  for (char* const* e = env; *e; ++e)
    if (strncmp(*e, "LD_PRELOAD=", 11) == 0) preload = *e + 11;
  if (!preload || !strip_preload(preload, ours, w->preload, sizeof w->preload) || w->preload[0]) return PASS;
  copy_env(env, newenv, "LD_PRELOAD=", NULL, NULL);
  return LEAVE;
}

/* Started through edashim: __EDASHIM_ROUTE names `path` (and __EDASHIM_ROUTE_NAME the NAME of a
 * [tool.NAME] path when `by_path`), the rest of the environment as it is. */
static enum decision route(const char* path, int by_path, char* const* env, char** newenv, struct work* w) {
  size_t n = strlen(path);
  if (n + 17 > sizeof w->route) return PASS;
  memcpy(w->route, "__EDASHIM_ROUTE=", 16);
  memcpy(w->route + 16, path, n + 1);
  copy_env(env, newenv, "__EDASHIM_ROUTE", w->route, by_path ? w->route_name : NULL);  /* both names */
  return ROUTE;
}

/* 1 when `path` is a tool to route: by file name (__EDASHIM_TOOLS), or by a [tool.NAME] path
 * (__EDASHIM_PATHS; w->route_name is then "__EDASHIM_ROUTE_NAME=NAME" and *by_path 1). */
static int route_candidate(const char* path, char* const* env, struct work* w, int* by_path) {
  static const char name_var[] = "__EDASHIM_ROUTE_NAME=";
  const size_t nv = sizeof name_var - 1;
  const char* base = base_of(path);
  const char* tools = env_get(env, "__EDASHIM_TOOLS");
  const char* paths = env_get(env, "__EDASHIM_PATHS");
  *by_path = 0;
  if (tools && in_list(tools, base, strlen(base))) return 1;
  if (!paths || !routed_by_path(paths, path, w->route_name + nv, sizeof w->route_name - nv)) return 0;
  memcpy(w->route_name, name_var, nv);
  *by_path = 1;
  return 1;
}

/* A static program loads nothing, so the hook is not in it, and what it starts inherits
 * LD_PRELOAD unseen: a musl program (or any other foreign loader's) below it would stop before
 * main. edashim's entries leave its LD_PRELOAD, and a record says so (an empty loader). */
static enum decision static_program(const char* program, char* const* env, char** newenv, struct work* w,
                                    const char* ours) {
  if (!without_ours(env, newenv, w, ours)) return PASS;
  w->v.loader[0] = w->v.missing[0] = w->v.has[0] = 0;
  record_not_applied(env, program, &w->v);
  return STRIP;
}

/* A program of a loader other than the system's (w->v.loader): edashim's entries leave its
 * LD_PRELOAD unless they can be shown to load there. */
static enum decision foreign_loader(const char* program, char* const* argv, int explicit_run, char* const* env,
                                   char** newenv, struct work* w, const char* ours) {
  if (edh_loads_there(w->v.loader, (const char* const*)argv, explicit_run, ours, &w->v)) return PASS;
  if (!without_ours(env, newenv, w, ours)) return PASS;
  /* The program named is the one after the loader's options when a loader is run by hand. */
  if (explicit_run)
    for (int i = 1; argv[i]; ++i) {
      if (strcmp(argv[i], "--library-path") == 0 || strcmp(argv[i], "--inhibit-rpath") == 0 ||
          strcmp(argv[i], "--preload") == 0 || strcmp(argv[i], "--argv0") == 0 || strcmp(argv[i], "--audit") == 0) {
        if (!argv[++i]) break;
        continue;
      }
      if (argv[i][0] == '-' && argv[i][1] == '-') continue;
      program = argv[i];
      break;
    }
  record_not_applied(env, program, &w->v);
  return STRIP;
}

/* A loader run by hand with --list among its options (before the program): it lists what it
 * loads, as under LD_TRACE_LOADED_OBJECTS. */
static int lists_objects(char* const* argv) {
  for (int i = 1; argv[i] && argv[i][0] == '-' && argv[i][1] == '-'; ++i) {
    if (strcmp(argv[i], "--list") == 0) return 1;
    if (strcmp(argv[i], "--library-path") == 0 || strcmp(argv[i], "--inhibit-rpath") == 0 ||
        strcmp(argv[i], "--preload") == 0 || strcmp(argv[i], "--argv0") == 0 || strcmp(argv[i], "--audit") == 0)
      if (!argv[++i]) break;
  }
  return 0;
}

/* The argv the kernel gives the interpreter of level `depth` (w->sb[0..depth]): each
 * interpreter and its argument, innermost first, then the script as called. */
static void script_argv_prefix(struct work* w, int depth, const char* script) {
  w->nprefix = 0;
  for (int i = depth; i >= 0; --i) {
    w->prefix[w->nprefix++] = w->sb[i].interp;
    if (w->sb[i].has_arg) w->prefix[w->nprefix++] = w->sb[i].arg;
  }
  w->prefix[w->nprefix++] = script;
}

/* The file an exec would start, as the hook sees it. */
struct target {
  const char* path; /* what stat and open reach it by (for a descriptor: /proc/self/fd/N) */
  const char* name; /* the path the caller named (for a descriptor: the file's name, for records) */
  int routable;     /* 0 for a descriptor's file: there is no path to route by */
};

/* The script at `script` (level `depth` of t's #! chain) names a tool to route as its
 * interpreter (w->sb[depth], stat `ist`): routed with the kernel's argv when the kernel would
 * start both; a #! naming edashim's own link is the kernel's to run. */
static enum decision route_script(const struct target* t, const char* script, const struct stat* ist, int depth,
                                  int by_path, char* const* argv, char* const* env, char** newenv, struct work* w) {
  const char* interp = w->sb[depth].interp;
  if (is_edashim(ist, w->exe) || !may_execute(script) || !would_start(interp)) return PASS;
  if (argv[0])
    for (size_t n = 1; argv[n]; ++n)
      if (n > MAX_SCRIPT_ARGS) return PASS;
  script_argv_prefix(w, depth, t->name);
  return route(interp, by_path, env, newenv, w);
}

/* Who this process was when the library loaded: only a process that changed identity since
 * (a privilege drop) can have lost access to what it was started with. */
static uid_t g_start_euid;
static gid_t g_start_egid;

__attribute__((constructor)) static void edashim_hook_start(void) {
  g_start_euid = geteuid();
  g_start_egid = getegid();
}

/* Whether `st` lets uid/gid/groups do `want` (4 read, 1 search), by its mode bits alone. */
static int permits(const struct stat* st, unsigned want, uid_t uid, gid_t gid, const gid_t* groups, int ngroups) {
  unsigned m = (unsigned)st->st_mode;
  if (st->st_uid == uid) return ((m >> 6) & want) == want;
  int in_group = st->st_gid == gid;
  for (int i = 0; !in_group && i < ngroups; ++i) in_group = groups[i] == st->st_gid;
  return ((in_group ? m >> 3 : m) & want) == want;
}

/* Whether ld.so, in the program this process starts as its ids are now, could open the absolute
 * `path`. Not faccessat: a privilege-dropping tool (setpriv) may still hold CAP_DAC_OVERRIDE
 * until exec, which then clears it for a user other than root; so the mode bits of each
 * directory on the way and of the file, for the ids alone. When it cannot tell: yes. */
static int openable_after_exec(const char* path) {
  uid_t uid = geteuid();
  if (uid == 0) return 1;
  gid_t groups[256];
  int n = getgroups(256, groups);
  size_t len = strlen(path);
  char dir[CAP];
  struct stat st;
  if (n < 0 || path[0] != '/' || len >= sizeof dir) return 1;
  gid_t gid = getegid();
  for (size_t i = 0; i < len; ++i) {
    if (path[i] != '/') continue;
    memcpy(dir, path, i ? i : 1);
    dir[i ? i : 1] = 0;
    if (stat(dir, &st) != 0) return 1;
    if (!permits(&st, 1, uid, gid, groups, n)) return 0;
  }
  return stat(path, &st) != 0 || permits(&st, 4, uid, gid, groups, n);
}

/* The entries of `ours` (':'-separated) that this process, after a change of identity, could not
 * open once it starts a program, into out; 0 when there are none (or the list does not fit:
 * nothing changes). */
static int unreadable_of(const char* ours, char* out, size_t cap) {
  if (geteuid() == g_start_euid && getegid() == g_start_egid) return 0;
  size_t len = 0;
  for (const char* p = ours; *p;) {
    while (*p == ':') ++p;
    const char* e = p;
    while (*e && *e != ':') ++e;
    size_t n = (size_t)(e - p);
    char path[CAP];
    if (n && n < sizeof path) {
      memcpy(path, p, n);
      path[n] = 0;
      if (!openable_after_exec(path) && !append_entry(out, &len, cap, p, n)) return 0;
    }
    p = e;
  }
  out[len] = 0;
  return len > 0;
}

/* `st`: the target's stat when the caller has it, else NULL. */
static enum decision decide(const struct target* t, const struct stat* st, char* const* argv, char* const* env,
                            char** newenv, struct work* w) {
  const char* ours = env_get(env, "__EDASHIM_OURS");
  if (!ours || switched_off(env_get(env, "EDASHIM"))) return PASS;
  /* ld.so asked to list what it loads (ldd) runs nothing: it must list what it lists directly. */
  if (env_get(env, "LD_TRACE_LOADED_OBJECTS")) return without_ours(env, newenv, w, ours) ? STRIP : PASS;
  if (unreadable_of(ours, w->unreadable, sizeof w->unreadable))
    return without_ours(env, newenv, w, w->unreadable) ? STRIP : PASS;
  w->exe = env_get(env, "__EDASHIM_EXE");
  int by_path = 0;
  int can_route = w->exe && w->exe[0] == '/';
  if (can_route && t->routable && route_candidate(t->name, env, w, &by_path) && !same_file(t->path, w->exe) &&
      would_start(t->path))
    return route(t->name, by_path, env, newenv, w);
  int records = env_get(env, "__EDASHIM_PROBE") != NULL;
  int leaf = 0;
  int* want_leaf = records ? NULL : &leaf;
  struct stat own;
  if (!st && stat(t->path, &own) == 0) st = &own;
  const char* path = t->path;  /* the file at this level: the program, then each #! interpreter */
  const char* name = t->name;
  for (int depth = 0;; ++depth) {
    /* Not a regular file: the kernel refuses it (EACCES), and opening a FIFO could block. */
    if (!st || !S_ISREG(st->st_mode)) return PASS;
    int explicit_run = edh_is_loader_name(base_of(name));
    if (explicit_run && depth == 0 && argv[0] && lists_objects(argv))
      return without_ours(env, newenv, w, ours) ? STRIP : PASS;
    struct edh_shebang* sb = &w->sb[depth < MAX_INTERP ? depth : 0];
    enum plain known = explicit_run ? UNKNOWN : known_plain(st, sb);
    if (known == LEAF && !records) return leave_out(env, newenv, w, ours);
    if (known == PLAIN_CHECKED || known == LEAF || (known == PLAIN && records)) return PASS;
    if (known == STATIC) return static_program(t->name, env, newenv, w, ours);
    int kind = EDH_DYNAMIC;
    if (explicit_run) {
      if (strlen(path) >= sizeof w->v.loader) return PASS;
      strcpy(w->v.loader, path);
    } else if (known == SCRIPT) {
      kind = EDH_SCRIPT;
    } else {
      kind = look_at(path, &w->v, sb, want_leaf);
      if (kind == EDH_SCRIPT) remember(st, SCRIPT, sb);
    }
    if (kind == EDH_STATIC) {
      if (is_edashim(st, w->exe)) return remember_plain(st, PLAIN_CHECKED), PASS;  /* a link: it takes care */
      remember_plain(st, STATIC);
      return static_program(t->name, env, newenv, w, ours);
    }
    if (kind != EDH_SCRIPT && kind != EDH_DYNAMIC) return remember_plain(st, PLAIN_CHECKED), PASS;
    if (kind == EDH_SCRIPT) {
      if (depth >= MAX_INTERP) return PASS;  /* the kernel gives up too (ELOOP) */
      /* The kernel starts the interpreter, unseen by the hook: it is looked at here. */
      const char* interp = w->sb[depth].interp;
      struct stat ist;
      if (stat(interp, &ist) != 0) return PASS;
      /* From a descriptor the kernel names the script /dev/fd/N (or fails, ENOENT, for a
       * close-on-exec one): not routed, the interpreter still looked at. */
      if (can_route && t->routable && route_candidate(interp, env, w, &by_path))
        return route_script(t, path, &ist, depth, by_path, argv, env, newenv, w);
      own = ist;
      st = &own;
      path = name = interp;
      continue;
    }
    const char* sys = edh_system_loader();
    if (sys && (strcmp(w->v.loader, sys) == 0 || same_file(w->v.loader, sys))) {
      if (explicit_run) return PASS;
      remember_plain(st, leaf ? LEAF : want_leaf ? PLAIN_CHECKED : PLAIN);
      return leaf ? leave_out(env, newenv, w, ours) : PASS;
    }
    /* A loader run by hand as a script's interpreter: its options are not the caller's argv. */
    char* const alone[] = {(char*)path, NULL};
    return foreign_loader(t->name, depth ? alone : argv, explicit_run, env, newenv, w, ours);
  }
}

/* Where the call's program is, for the hook to look at: its path, or the descriptor's through
 * /proc/self/fd (its name for records from there too). 0 when there is nothing to look at. */
static int target_of(const struct call* c, struct work* w, struct target* t, struct stat* st, int* have_st) {
  int by_fd = c->kind == K_FEXECVE || (c->kind == K_EXECVEAT && (c->flags & AT_EMPTY_PATH) && !c->file[0]);
  *have_st = 0;
  t->routable = 1;
  if (by_fd || (c->kind == K_EXECVEAT && c->file[0] != '/' && c->fd != AT_FDCWD)) {
    /* A descriptor, or a path under a directory's descriptor: read through /proc. */
    char num[16];
    int k = 0;
    unsigned v = (unsigned)c->fd;
    if (c->fd < 0) return 0;
    do num[k++] = (char)('0' + v % 10), v /= 10;
    while (v);
    char* p = w->fdpath;
    memcpy(p, "/proc/self/fd/", 14);
    p += 14;
    while (k) *p++ = num[--k];
    *p = 0;
    t->routable = 0;
    if (!by_fd) {
      if (!edh_join(w->resolved, sizeof w->resolved, w->fdpath, strlen(w->fdpath), c->file)) return 0;
      t->path = w->resolved;
      t->name = c->file;
      return 1;
    }
    t->path = w->fdpath;
    ssize_t n = readlink(w->fdpath, w->resolved, sizeof w->resolved - 1);
    if (n <= 0) return 0;
    w->resolved[n] = 0;
    t->name = w->resolved;
    return 1;
  }
  t->path = t->name = c->file;
  /* execveat's flags (AT_SYMLINK_NOFOLLOW) are not execve's: looked at, not routed. */
  if (c->kind == K_EXECVEAT && c->flags) t->routable = 0;
  if ((c->kind == K_EXECVPE || c->kind == K_SPAWNP) && !strchr(c->file, '/')) {
    if (!c->file[0] || !path_search(c->file, w->resolved, st)) return 0;
    t->path = t->name = w->resolved;
    *have_st = 1;
  }
  return 1;
}

static int intercept(const struct call* c) {
  int saved = errno;
  char* const empty[] = {NULL};
  char* const* env = c->envp ? c->envp : empty;
  size_t n = 0;
  while (env[n] && n <= MAX_ENV) ++n;
  if (n > MAX_ENV || (!c->file && c->kind != K_FEXECVE) || !c->argv || !env_get(env, "__EDASHIM_OURS") ||
      EDASHIM_IN_LAUNCHER())
    return errno = saved, call_real(c, c->kind, c->file, c->argv, c->envp);
  char* newenv[n + 3];
  struct work w;
  struct target t;
  struct stat st;
  int have_st;
  w.nprefix = 0;
  if (!target_of(c, &w, &t, &st, &have_st)) return errno = saved, call_real(c, c->kind, c->file, c->argv, c->envp);
  enum decision d = decide(&t, have_st ? &st : NULL, c->argv, env, newenv, &w);
  errno = saved;
  if (d == ROUTE) {
    int spawn = c->kind == K_SPAWN || c->kind == K_SPAWNP;
    size_t argc = 0;
    if (w.nprefix)
      while (c->argv[argc]) ++argc;
    /* A routed script: the interpreter's argv, as the kernel builds it. */
    char* nargv[w.nprefix ? (size_t)w.nprefix + argc + 1 : 1];
    char* const* argv = c->argv;
    if (w.nprefix) {
      size_t k = 0;
      for (int i = 0; i < w.nprefix; ++i) nargv[k++] = (char*)w.prefix[i];
      for (size_t i = 1; i < argc; ++i) nargv[k++] = c->argv[i];
      nargv[k] = NULL;
      argv = nargv;
    }
    int r = call_real(c, spawn ? K_SPAWN : K_EXECVE, w.exe, argv, newenv);
    if (spawn && r == 0) return 0;
    errno = saved;  /* edashim could not be started: the program as asked for */
    return call_real(c, c->kind, c->file, c->argv, c->envp);
  }
  return call_real(c, c->kind, c->file, c->argv, d == STRIP || d == LEAVE ? newenv : c->envp);
}

#define EXPORT __attribute__((visibility("default")))

EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  struct call c = {K_EXECVE, path, argv, envp, NULL, NULL, NULL, -1, 0};
  return intercept(&c);
}

EXPORT int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }

EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  struct call c = {K_EXECVPE, file, argv, envp, NULL, NULL, NULL, -1, 0};
  return intercept(&c);
}

EXPORT int execvp(const char* file, char* const argv[]) { return execvpe(file, argv, environ); }

/* Python's os.execve(fd, ...) and others that open the program first: no path to route by, but
 * the loader and static rules hold (the program is read through /proc/self/fd). */
EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  struct call c = {K_FEXECVE, NULL, argv, envp, NULL, NULL, NULL, fd, 0};
  return intercept(&c);
}

EXPORT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) {
  struct call c = {K_EXECVEAT, path, argv, envp, NULL, NULL, NULL, dirfd, flags};
  return intercept(&c);
}

EXPORT int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                       const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  struct call c = {K_SPAWN, path, argv, envp, pid, actions, attr, -1, 0};
  return intercept(&c);
}

EXPORT int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                        const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  struct call c = {K_SPAWNP, file, argv, envp, pid, actions, attr, -1, 0};
  return intercept(&c);
}

/* The execl family: arguments gathered on the stack, then the execv* path above. */
static size_t count_args(const char* first, va_list ap) {
  size_t n = 1;
  if (!first) return 0;
  while (va_arg(ap, const char*) && n < MAX_ARGS) ++n;
  return n;
}

#define GATHER(argv, arg0, ap, n)                          \
  char* argv[(n) + 1];                                     \
  do {                                                     \
    size_t i_ = 0;                                         \
    if (n) argv[i_++] = (char*)(arg0);                     \
    for (; i_ < (n); ++i_) argv[i_] = va_arg(ap, char*);   \
    argv[i_] = NULL;                                       \
  } while (0)

EXPORT int execl(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  size_t n = count_args(arg, ap);
  va_end(ap);
  va_start(ap, arg);
  GATHER(argv, arg, ap, n);
  va_end(ap);
  return execve(path, argv, environ);
}

EXPORT int execlp(const char* file, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  size_t n = count_args(arg, ap);
  va_end(ap);
  va_start(ap, arg);
  GATHER(argv, arg, ap, n);
  va_end(ap);
  return execvpe(file, argv, environ);
}

EXPORT int execle(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  size_t n = count_args(arg, ap);
  va_end(ap);
  va_start(ap, arg);
  GATHER(argv, arg, ap, n);
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return execve(path, argv, envp);
}
