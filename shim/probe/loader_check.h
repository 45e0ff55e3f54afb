/* What the exec hook (hook.c) and pre-flight (pipeline/preflight.cpp) ask of a program about to
 * start: which loader starts it, and can edashim's preloaded libraries load under that loader?
 *
 * Plain C with no allocation and no stdio, callable in a vfork child: every file is read through
 * a callback into the caller's buffers (unit tests pass bytes held in memory). */
#ifndef EDASHIM_LOADER_CHECK_H
#define EDASHIM_LOADER_CHECK_H
#include <stddef.h>

#include "elf/elf_read.h" /* edh_read_fn, and the reader of the ELF structures below */

#ifdef __cplusplus
extern "C" {
#endif

enum edh_kind { EDH_OTHER = 0, EDH_SCRIPT = 1, EDH_STATIC = 2, EDH_DYNAMIC = 3 };

/* The kind of file (#! script, static ELF, ELF with PT_INTERP, anything else); for EDH_DYNAMIC
 * its PT_INTERP is copied to interp (truncated programs and oversized strings give EDH_OTHER). */
int edh_exec_kind(edh_read_fn rd, void* ctx, char* interp, size_t cap);

/* 1 when a file's first bytes (`len` of them) are what the kernel starts by itself: `#!` or ELF's
 * magic. Anything else fails its execve with ENOEXEC (binfmt_misc aside), and execvp runs it
 * under /bin/sh. */
int edh_starts_as_program(const char* head, size_t len);

/* The first line of a `#!` script as the kernel parses it (fs/binfmt_script.c, Linux 5.1 and
 * later): from the first 256 bytes (BINPRM_BUF_SIZE), the interpreter after `#!` and spaces or
 * tabs, up to a space, tab, NUL or the line's end; then at most one argument, the rest of the
 * line without its leading and trailing spaces and tabs (inner ones kept, a '\r' kept). A line
 * with no newline in those bytes counts only if the interpreter's name ends in them. */
#define EDH_SHEBANG_BUF 256
struct edh_shebang {
  char interp[EDH_SHEBANG_BUF];
  char arg[EDH_SHEBANG_BUF];
  int has_arg; /* the kernel passes the argument, even an empty one (a NUL right after the blanks) */
};

/* 1 with `out` filled; 0 where the kernel starts no interpreter: no `#!`, no interpreter, one
 * cut off by the 256 bytes (ENOEXEC), or an empty one (a NUL right after `#!`: ENOENT).
 * `head`: the file's first `len` bytes (more than 256 are ignored). */
int edh_parse_shebang(const char* head, size_t len, struct edh_shebang* out);

/* 0 when the dynamic ELF object read by `rd` provably starts no program of its own: it needs no
 * library but libc.so.6 and imports none of the functions that start a program or load code
 * (the exec family, posix_spawn, system, popen, wordexp, dlopen, syscall). 1 otherwise, and
 * whenever it cannot be read that far (no section headers, another class, tables too large).
 * The hook leaves itself out of such a program when nothing records (hook.c). The answer comes
 * from the section headers, which the loader does not read: a program whose headers lie can only
 * leave itself without the hook, as clearing its own LD_PRELOAD would. */
int edh_may_start_programs(edh_read_fn rd, void* ctx);

/* 1 when `base` (a file name) is a dynamic loader's: ld-linux*.so*, ld-*.so*, ld-musl-*. */
int edh_is_loader_name(const char* base);

/* 1 for a musl loader's file name (ld-musl-*). */
int edh_is_musl_loader(const char* base);

/* Appends to `out` (space-separated, each once) the GLIBC_* versions the object needs
 * (.gnu.version_r entries against libc.so.6). Returns 0, or -1 when it cannot be read as an
 * ELF object of this machine. */
int edh_needed_glibc(edh_read_fn rd, void* ctx, char* out, size_t cap);

/* Whether a libc.so.6 defines (.gnu.version_d) every version of `needs` (space-separated).
 * Returns 1 yes, 0 no (the first missing one is copied to `missing`), -1 not a libc of this
 * machine's class and architecture. `best` receives the highest GLIBC_x.y it defines, or "". */
int edh_libc_covers(edh_read_fn rd, void* ctx, const char* needs, char* missing, size_t mcap, char* best,
                    size_t bcap);

/* Compares two "GLIBC_2.34"-style names by version: <0, 0, >0. */
int edh_version_cmp(const char* a, const char* b);

/* The libc.so.6 `loader` uses when not told otherwise (beside its real file) into `out`; 0 when
 * it does not fit. */
int edh_loader_libc(const char* loader, char* out, size_t cap);

/* The system's dynamic loader for this architecture, or NULL when unknown. */
const char* edh_system_loader(void);

/* A reader over a file descriptor (ctx points to the int). */
/* `a` (its first `an` bytes), '/', `b` into `out` of `cap` bytes; 0 when it does not fit. No
 * allocation: the hook calls it in a vfork child. */
int edh_join(char* out, size_t cap, const char* a, size_t an, const char* b);

long edh_read_fd(void* ctx, unsigned long long off, void* buf, unsigned long n);

#define EDH_PATH_CAP 4096

/* Which loader, and what it lacks. */
struct edh_verdict {
  char loader[EDH_PATH_CAP];
  char missing[64];  /* the highest version edashim's libraries need that its libc lacks, or "glibc" */
  char has[64];      /* the highest GLIBC_x.y its libc has, "musl", or why none was found */
};

/* 1 when edashim's preloaded libraries (`ours`, colon-separated paths) can be shown to load
 * under v->loader: a glibc loader whose libc (in argv's --library-path when the loader is run
 * explicitly, else beside the loader's real file) defines every GLIBC_x they need. musl: never. */
int edh_loads_there(const char* loader, const char* const* argv, int explicit_run, const char* ours,
                    struct edh_verdict* v);

#ifdef __cplusplus
}
#endif
#endif
