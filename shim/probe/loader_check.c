/* See loader_check.h. Everything is bounds-checked: the files are someone else's (their ELF
 * structures come through elf/elf_read.h). */
#define _GNU_SOURCE
#include "loader_check.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_read.h"

#if defined(__x86_64__)
#define EDH_MACHINE EM_X86_64
#define EDH_LOADER "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define EDH_MACHINE EM_AARCH64
#define EDH_LOADER "/lib/ld-linux-aarch64.so.1"
#elif defined(__riscv) && __riscv_xlen == 64
#define EDH_MACHINE EM_RISCV
#define EDH_LOADER "/lib/ld-linux-riscv64-lp64d.so.1"
#else
#define EDH_MACHINE EM_NONE
#define EDH_LOADER NULL
#endif

const char* edh_system_loader(void) { return EDH_LOADER; }

long edh_read_fd(void* ctx, unsigned long long off, void* buf, unsigned long n) {
  int fd = *(int*)ctx;
  long got = 0;
  while ((unsigned long)got < n) {
    ssize_t r = pread(fd, (char*)buf + got, n - (unsigned long)got, (off_t)(off + (unsigned long long)got));
    if (r < 0) return -1;
    if (r == 0) break;
    got += r;
  }
  return got;
}

/* The header, with program and section headers of its class's size (the loader's rule for the
 * former; the tables read below are the latter). */
static int read_header(edh_read_fn rd, void* ctx, struct edh_elf* e) {
  return edh_elf_header(e, rd, ctx) && e->phentsize == e->phsize && (e->shnum == 0 || e->shentsize == e->shsize);
}

int edh_exec_kind(edh_read_fn rd, void* ctx, char* interp, size_t cap) {
  struct edh_elf h;
  if (cap) interp[0] = 0;
  char two[2];
  if (rd(ctx, 0, two, 2) == 2 && two[0] == '#' && two[1] == '!') return EDH_SCRIPT;
  if (!read_header(rd, ctx, &h)) return EDH_OTHER;
  if (h.phnum > 256) return EDH_OTHER;
  for (unsigned i = 0; i < h.phnum; ++i) {
    struct edh_elf_phdr p;
    if (!edh_elf_program_header(&h, i, &p)) return EDH_OTHER;
    if (p.type != PT_INTERP) continue;
    unsigned long long size = p.filesz;
    if (size < 2 || size > cap) return EDH_OTHER;
    if (!edh_elf_read(&h, p.offset, interp, (unsigned long)size) || interp[size - 1] != 0) {
      interp[0] = 0;
      return EDH_OTHER;
    }
    return EDH_DYNAMIC;
  }
  return EDH_STATIC;
}

int edh_starts_as_program(const char* head, size_t len) {
  return (len >= 2 && head[0] == '#' && head[1] == '!') || (len >= SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0);
}

/* The kernel's helpers, over [first, last] (both included). */
static int spacetab(char c) { return c == ' ' || c == '\t'; }

static const char* next_non_spacetab(const char* first, const char* last) {
  for (; first <= last; ++first)
    if (!spacetab(*first)) return first;
  return NULL;
}

static const char* next_terminator(const char* first, const char* last) {
  for (; first <= last; ++first)
    if (spacetab(*first) || !*first) return first;
  return NULL;
}

/* [from, to) up to its first NUL, into out (cap > to - from: the buffer is 256 bytes). */
static void copy_until_nul(char* out, const char* from, const char* to) {
  size_t n = 0;
  while (from + n < to && from[n]) out[n] = from[n], ++n;
  out[n] = 0;
}

int edh_parse_shebang(const char* head, size_t len, struct edh_shebang* out) {
  char buf[EDH_SHEBANG_BUF];  /* the kernel's buffer: the file's bytes, NUL after a short file */
  size_t n = len < sizeof buf ? len : sizeof buf;
  memset(buf, 0, sizeof buf);
  memcpy(buf, head, n);
  out->interp[0] = out->arg[0] = 0;
  out->has_arg = 0;
  if (n < 2 || buf[0] != '#' || buf[1] != '!') return 0;
  const char* buf_end = buf + sizeof buf - 1;
  /* strnchr: the first newline before a NUL. */
  const char* i_end = NULL;
  for (const char* p = buf; p <= buf_end && *p; ++p)
    if (*p == '\n') {
      i_end = p;
      break;
    }
  if (!i_end) {
    /* No newline: the name must end within the buffer, else it may be cut short. */
    i_end = next_non_spacetab(buf + 2, buf_end);
    if (!i_end || !next_terminator(i_end, buf_end)) return 0;
    i_end = buf_end;
  }
  while (spacetab(i_end[-1])) --i_end;
  const char* i_name = next_non_spacetab(buf + 2, i_end);
  if (!i_name || i_name == i_end) return 0;
  const char* i_sep = next_terminator(i_name, i_end);
  const char* i_arg = i_sep && *i_sep ? next_non_spacetab(i_sep, i_end) : NULL;
  copy_until_nul(out->interp, i_name, i_sep && i_sep < i_end ? i_sep : i_end);
  if (i_arg) {
    copy_until_nul(out->arg, i_arg, i_end);
    out->has_arg = 1;
  }
  return out->interp[0] != 0;  /* "#!" and a NUL: the kernel looks for "" (ENOENT) */
}

int edh_is_loader_name(const char* base) {
  /* ld-linux-x86-64.so.2, ld-2.31.so, ld-musl-x86_64.so.1: "ld-" and, after it, ".so". */
  return strncmp(base, "ld-", 3) == 0 && strstr(base + 3, ".so") != NULL;
}

int edh_is_musl_loader(const char* base) { return strncmp(base, "ld-musl-", 8) == 0; }

static unsigned long long num_at(const char* s) {
  unsigned long long v = 0;
  while (*s >= '0' && *s <= '9') v = v * 10 + (unsigned long long)(*s++ - '0');
  return v;
}

int edh_version_cmp(const char* a, const char* b) {
  const char* pa = strchr(a, '_');
  const char* pb = strchr(b, '_');
  pa = pa ? pa + 1 : a;
  pb = pb ? pb + 1 : b;
  while (*pa || *pb) {
    unsigned long long x = num_at(pa), y = num_at(pb);
    if (x != y) return x < y ? -1 : 1;
    while (*pa >= '0' && *pa <= '9') ++pa;
    while (*pb >= '0' && *pb <= '9') ++pb;
    if (*pa == '.') ++pa;
    else if (*pa) return *pb ? strcmp(pa, pb) : 1;
    if (*pb == '.') ++pb;
    else if (*pb && !*pa) return -1;
  }
  return 0;
}

/* The section of `type` and its string table; 0 when absent. */
static int find_versions(const struct edh_elf* h, unsigned type, struct edh_elf_shdr* s, struct edh_elf_shdr* str) {
  if (h->shnum > 4096) return 0;
  for (unsigned i = 0; i < h->shnum; ++i)
    if (edh_elf_section_header(h, i, s) && s->type == type) return edh_elf_section_header(h, s->link, str);
  return 0;
}

/* The string at `at` of the string table into buf; 0 when out of bounds or too long for buf (its
 * end is looked for in one read of at most cap - 1 bytes). */
static int read_name(const struct edh_elf* h, const struct edh_elf_shdr* str, unsigned long long at, char* buf,
                     size_t cap) {
  if (at >= str->size || cap < 2) return 0;
  unsigned long long left = str->size - at, off = str->offset + at;
  return edh_elf_string(h, off, off + (left < cap - 1 ? left : cap - 1), buf, cap) >= 0;
}

static int has_word(const char* list, const char* w) {
  size_t n = strlen(w);
  for (const char* p = list; (p = strstr(p, w)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
  return 0;
}

static void append_word(char* out, size_t cap, const char* w) {
  size_t len = strlen(out), n = strlen(w);
  if (has_word(out, w) || len + n + 2 > cap) return;
  if (len) out[len++] = ' ';
  memcpy(out + len, w, n + 1);
}

/* What a program imports to start another program, or to load code that could: glibc's
 * system, popen and wordexp run /bin/sh with calls of their own the hook never sees. */
static const char* const k_starters[] = {"execve", "execv", "execvp", "execvpe", "execl", "execlp",
                                         "execle", "fexecve", "execveat", "posix_spawn", "posix_spawnp",
                                         "system", "popen", "wordexp", "dlopen", "dlmopen", "syscall", NULL};

static int is_starter(const char* name) {
  for (int i = 0; k_starters[i]; ++i)
    if (strcmp(name, k_starters[i]) == 0) return 1;
  return 0;
}

/* The dynamic section's DT_NEEDED names are all libc.so.6; `str` holds .dynstr (NUL-ended). */
static int needs_only_libc(const struct edh_elf* h, const struct edh_elf_shdr* dyn, const char* str, size_t strsz) {
  unsigned char d[32 * sizeof(ElfW(Dyn))];
  for (unsigned long long at = 0; at < dyn->size;) {
    unsigned long want = (unsigned long)(dyn->size - at < sizeof d ? dyn->size - at : sizeof d);
    if (!edh_elf_read(h, dyn->offset + at, d, want)) return 0;
    for (size_t i = 0; i < want / h->dynsize; ++i) {
      struct edh_elf_dyn e;
      edh_elf_dynamic_entry_at(h, d + i * h->dynsize, &e);
      if (e.tag == DT_NULL) return 1;
      if (e.tag == DT_NEEDED && (e.val >= strsz || strcmp(str + e.val, "libc.so.6") != 0)) return 0;
    }
    at += want;
  }
  return 1;
}

int edh_may_start_programs(edh_read_fn rd, void* ctx) {
  struct edh_elf h;
  if (!read_header(rd, ctx, &h) || h.is64 != (sizeof(void*) == 8) || h.machine != EDH_MACHINE) return 1;
  /* All section headers in one read: the hook asks this on every exec. */
  unsigned char sh[64 * sizeof(ElfW(Shdr))];
  if (h.shnum == 0 || h.shnum > 64 || !edh_elf_read(&h, h.shoff, sh, h.shnum * h.shsize)) return 1;
  struct edh_elf_shdr sym = {0}, dyn = {0}, strs, x;
  unsigned syms = 0, dyns = 0;
  for (unsigned i = 0; i < h.shnum; ++i) {
    edh_elf_section_header_at(&h, sh + i * h.shsize, &x);
    if (x.type == SHT_DYNSYM) sym = x, ++syms;
    if (x.type == SHT_DYNAMIC) dyn = x, ++dyns;
  }
  /* One of each, as a linker writes them; and a program that starts nothing is a small one:
   * larger tables are not worth the reads. */
  if (syms != 1 || dyns != 1 || sym.link >= h.shnum || dyn.link != sym.link || sym.size > 65536 || dyn.size > 8192)
    return 1;
  edh_elf_section_header_at(&h, sh + sym.link * h.shsize, &strs);
  char str[4096];  /* true's is 670 bytes, touch's 968: a program that starts none is small */
  if (strs.type != SHT_STRTAB || strs.size == 0 || strs.size > sizeof str ||
      !edh_elf_read(&h, strs.offset, str, (unsigned long)strs.size) || str[strs.size - 1] != 0)
    return 1;
  size_t strsz = (size_t)strs.size;
  if (!needs_only_libc(&h, &dyn, str, strsz)) return 1;
  unsigned char s[64 * sizeof(ElfW(Sym))];
  for (unsigned long long at = 0; at < sym.size;) {
    unsigned long want = (unsigned long)(sym.size - at < sizeof s ? sym.size - at : sizeof s);
    if (!edh_elf_read(&h, sym.offset + at, s, want)) return 1;
    for (size_t i = 0; i < want / h.symsize; ++i) {
      struct edh_elf_sym y;
      edh_elf_symbol_at(&h, s + i * h.symsize, &y);
      if (y.shndx == SHN_UNDEF && (y.name >= strsz || is_starter(str + y.name))) return 1;
    }
    at += want;
  }
  return 0;
}

int edh_needed_glibc(edh_read_fn rd, void* ctx, char* out, size_t cap) {
  struct edh_elf h;
  struct edh_elf_shdr s, str;
  if (!read_header(rd, ctx, &h)) return -1;
  if (!find_versions(&h, SHT_GNU_verneed, &s, &str)) return 0;
  unsigned long long off = 0;
  for (unsigned files = 0; files < 256 && off + sizeof(Elf64_Verneed) <= s.size; ++files) {
    Elf64_Verneed vn; /* the same layout in both classes */
    if (!edh_elf_read(&h, s.offset + off, &vn, sizeof vn)) return -1;
    char file[64];
    int is_libc = read_name(&h, &str, vn.vn_file, file, sizeof file) && strncmp(file, "libc.so", 7) == 0;
    unsigned long long aux = off + vn.vn_aux;
    for (unsigned j = 0; is_libc && j < vn.vn_cnt && j < 256 && aux + sizeof(Elf64_Vernaux) <= s.size; ++j) {
      Elf64_Vernaux va;
      char name[64];
      if (!edh_elf_read(&h, s.offset + aux, &va, sizeof va)) return -1;
      if (read_name(&h, &str, va.vna_name, name, sizeof name) && strncmp(name, "GLIBC_", 6) == 0)
        append_word(out, cap, name);
      if (!va.vna_next) break;
      aux += va.vna_next;
    }
    if (!vn.vn_next) break;
    off += vn.vn_next;
  }
  return 0;
}

int edh_libc_covers(edh_read_fn rd, void* ctx, const char* needs, char* missing, size_t mcap, char* best,
                    size_t bcap) {
  struct edh_elf h;
  struct edh_elf_shdr s, str;
  char defined[2048];
  defined[0] = 0;
  if (mcap) missing[0] = 0;
  if (bcap) best[0] = 0;
  if (!read_header(rd, ctx, &h) || h.is64 != (sizeof(void*) == 8) || h.machine != EDH_MACHINE) return -1;
  if (find_versions(&h, SHT_GNU_verdef, &s, &str)) {
    unsigned long long off = 0;
    for (unsigned k = 0; k < 512 && off + sizeof(Elf64_Verdef) <= s.size; ++k) {
      Elf64_Verdef vd;
      Elf64_Verdaux va;
      char name[64];
      if (!edh_elf_read(&h, s.offset + off, &vd, sizeof vd)) return -1;
      if (vd.vd_cnt && edh_elf_read(&h, s.offset + off + vd.vd_aux, &va, sizeof va) &&
          read_name(&h, &str, va.vda_name, name, sizeof name) && strncmp(name, "GLIBC_", 6) == 0 &&
          name[6] >= '0' && name[6] <= '9') {
        append_word(defined, sizeof defined, name);
        if (bcap && (!best[0] || edh_version_cmp(name, best) > 0) && strlen(name) < bcap) strcpy(best, name);
      }
      if (!vd.vd_next) break;
      off += vd.vd_next;
    }
  }
  int ok = 1;
  for (const char* p = needs; *p;) {
    while (*p == ' ') ++p;
    const char* e = p;
    while (*e && *e != ' ') ++e;
    char w[64];
    size_t n = (size_t)(e - p);
    if (n && n < sizeof w) {
      memcpy(w, p, n);
      w[n] = 0;
      /* The highest missing version is the one worth naming. */
      if (!has_word(defined, w) && n < mcap && (!missing[0] || edh_version_cmp(w, missing) > 0)) memcpy(missing, w, n + 1);
      else if (!has_word(defined, w)) ok = 0;
    }
    p = e;
  }
  return ok && !(mcap && missing[0]);
}

/* The file-system part: which libc a loader would use, read through descriptors. */
#define CAP EDH_PATH_CAP

int edh_join(char* out, size_t cap, const char* a, size_t an, const char* b) {
  size_t bn = strlen(b);
  if (an + 1 + bn + 1 > cap) return 0;
  memcpy(out, a, an);
  out[an] = '/';
  memcpy(out + an + 1, b, bn + 1);
  return 1;
}

static const char* base_of(const char* path) {
  const char* s = strrchr(path, '/');
  return s ? s + 1 : path;
}


static void read_path_needs(const char* ours, char* needs, size_t cap) {
  for (const char* p = ours; *p;) {
    const char* e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char lib[CAP];
    if (n && n < sizeof lib) {
      memcpy(lib, p, n);
      lib[n] = 0;
      int fd = open(lib, O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        edh_needed_glibc(edh_read_fd, &fd, needs, cap);
        close(fd);
      }
    }
    if (!e) break;
    p = e + 1;
  }
}

/* Whether a libc in `dir` covers `needs`: 1 yes, 0 no, -1 none there. */
static int libc_in(const char* dir, size_t n, const char* needs, struct edh_verdict* v) {
  char path[CAP];
  if (!edh_join(path, sizeof path, dir, n, "libc.so.6")) return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int r = edh_libc_covers(edh_read_fd, &fd, needs, v->missing, sizeof v->missing, v->has, sizeof v->has);
  close(fd);
  return r < 0 ? 0 : r;
}

/* The directory of the loader's real file (one level of symbolic link followed), into out. */
static size_t loader_dir(const char* loader, char* out) {
  char link[CAP];
  ssize_t n = readlink(loader, link, sizeof link - 1);
  const char* f = loader;
  if (n > 0) {
    link[n] = 0;
    if (link[0] == '/') {
      f = link;
    } else {
      const char* s = strrchr(loader, '/');
      size_t d = s ? (size_t)(s - loader) : 0;
      if (d + 1 + (size_t)n + 1 > CAP) return 0;
      memcpy(out, loader, d);
      out[d] = '/';
      memcpy(out + d + 1, link, (size_t)n + 1);
      const char* t = strrchr(out, '/');
      return (size_t)(t - out);
    }
  }
  const char* s = strrchr(f, '/');
  size_t d = s ? (size_t)(s - f) : 0;
  if (d >= CAP) return 0;
  memmove(out, f, d);
  out[d] = 0;
  return d;
}

int edh_loader_libc(const char* loader, char* out, size_t cap) {
  char dir[CAP];
  size_t d = loader_dir(loader, dir);
  return d && edh_join(out, cap, dir, d, "libc.so.6");
}

/* 1 when edashim's libraries can be shown to load under `loader` (argv: for --library-path). */
int edh_loads_there(const char* loader, const char* const* argv, int explicit_run, const char* ours,
                       struct edh_verdict* v) {
  if (edh_is_musl_loader(base_of(loader))) {
    strcpy(v->has, "musl");
    strcpy(v->missing, "glibc");
    return 0;
  }
  char needs[1024];
  needs[0] = 0;
  read_path_needs(ours, needs, sizeof needs);
  /* Until a libc says otherwise, what is missing is the newest version needed. */
  v->missing[0] = v->has[0] = 0;
  for (const char* p = needs; *p;) {
    while (*p == ' ') ++p;
    const char* e = p;
    while (*e && *e != ' ') ++e;
    size_t n = (size_t)(e - p);
    char w[64];
    if (n && n < sizeof w) {
      memcpy(w, p, n);
      w[n] = 0;
      if (!v->missing[0] || edh_version_cmp(w, v->missing) > 0) memcpy(v->missing, w, n + 1);
    }
    p = e;
  }
  if (explicit_run)
    for (int i = 1; argv[i] && argv[i + 1] && i < 64; ++i) {
      if (strcmp(argv[i], "--library-path") != 0) continue;
      for (const char* p = argv[i + 1]; *p;) {
        const char* e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int r = n ? libc_in(p, n, needs, v) : -1;
        if (r >= 0) return r;
        if (!e) break;
        p = e + 1;
      }
      break;
    }
  char dir[CAP];
  size_t d = loader_dir(loader, dir);
  int r = d ? libc_in(dir, d, needs, v) : -1;
  if (r < 0) strcpy(v->has, "no libc.so.6 beside it");
  return r > 0;
}

