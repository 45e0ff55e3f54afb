/* The end of a run's line in the run's own process: see line_end.h. */
#define _GNU_SOURCE
#include "probe/line_end.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The record's format line: pipeline/unfinished.cpp writes it (kFormat). */
static const char kFormat[] = "edashim-unfinished 2";

/* ---- reading ---- */

/* Undoes util::tsv_escape in place; 0 on a damaged escape. */
static int unescape(char* s) {
  char* out = s;
  for (; *s; ++s) {
    if (*s != '\\') {
      *out++ = *s;
      continue;
    }
    ++s;
    if (*s == '\\') *out++ = '\\';
    else if (*s == 't') *out++ = '\t';
    else if (*s == 'n') *out++ = '\n';
    else return 0;
  }
  *out = 0;
  return 1;
}

/* A whole decimal number, as strtoll reads it (util's number(): nothing after it). */
static int whole(const char* s, long long* v) {
  if (!*s) return 0;
  char* end;
  errno = 0;
  *v = strtoll(s, &end, 10);
  return !*end && !errno;
}

static int flag(const char* s, int* out) {
  if ((s[0] != '0' && s[0] != '1') || s[1]) return 0;
  *out = s[0] == '1';
  return 1;
}

/* Cuts text at the next `c`, returning what follows (NULL at the end). */
static char* cut(char* text, char c) {
  char* at = strchr(text, c);
  if (!at) return NULL;
  *at = 0;
  return at + 1;
}

static int record_field(struct edh_record* r, const char* key, char* v) {
  long long n;
  if (!strcmp(key, "start_ns")) return whole(v, &r->start_ns) && r->start_ns > 0;
  if (!strcmp(key, "own")) {
    char* rest = v;
    for (int k = 0; k < 5; ++k) {
      char* next = k < 4 ? cut(rest, ' ') : NULL;
      if ((k < 4 && !next) || !whole(rest, &r->own[k]) || r->own[k] < 0) return 0;
      rest = next;
    }
    return 1;
  }
  if (!strcmp(key, "log")) return (r->log = v), 1;
  if (!strcmp(key, "log_dev")) return whole(v, &n) && n >= 0 && ((r->log_dev = (unsigned long long)n), 1);
  if (!strcmp(key, "log_ino")) return whole(v, &n) && n >= 0 && ((r->log_ino = (unsigned long long)n), 1);
  if (!strcmp(key, "log_max_bytes")) return whole(v, &r->log_max_bytes) && r->log_max_bytes >= 0;
  if (!strcmp(key, "scratch")) return (r->scratch = v), 1;
  if (!strcmp(key, "keep_scratch")) return flag(v, &r->keep_scratch);
  if (!strcmp(key, "probe_file")) return (r->probe_file = v), 1;
  if (!strcmp(key, "probed")) return flag(v, &r->probed);
  if (!strcmp(key, "flow_top")) return flag(v, &r->flow_top);
  if (!strcmp(key, "unprobed_note")) return (r->unprobed_note = v), 1;
  if (!strcmp(key, "allocator_to_find")) return (r->allocator_to_find = v), 1;
  if (!strcmp(key, "launcher")) return (r->launcher = v), 1;
  if (!strcmp(key, "line")) return (r->line = v), 1;
  if (!strcmp(key, "provider")) {  /* "PREFIX FAMILY" */
    char* family = cut(v, ' ');
    if (!family || !*v || !*family || r->n_prefixes == EDH_MAX_PREFIXES) return 0;
    r->prefixes[r->n_prefixes][0] = v;
    r->prefixes[r->n_prefixes][1] = family;
    ++r->n_prefixes;
    return 1;
  }
  if (!strcmp(key, "sweep_base")) {
    if (r->n_sweep_bases == EDH_MAX_SWEEP_BASES) r->more_sweep_bases = 1;
    else r->sweep_bases[r->n_sweep_bases++] = v;
    return 1;
  }
  return 1; /* the rest is edashim-finish's (the log's keep, shared dirs, notes) */
}

int edh_parse_record(char* text, size_t len, struct edh_record* r) {
  static const char kEmpty[] = "";
  memset(r, 0, sizeof *r);
  r->log = r->scratch = r->probe_file = r->allocator_to_find = r->launcher = r->unprobed_note = r->line = kEmpty;
  if (strlen(text) != len) return 0;
  char* line = text;
  char* next = cut(line, '\n');
  if (strcmp(line, kFormat) != 0) return 0;
  while ((line = next) && *line) {
    next = cut(line, '\n');
    char* value = cut(line, '\t');
    if (!value || !unescape(value) || !record_field(r, line, value)) return 0;
  }
  return r->start_ns > 0 && *r->line == '{';
}

/* ---- the probe's records (run/probe_records.cpp: parse_probe_records) ---- */


/* strtol over the whole field, as probe_records.cpp's number(). */
static int number(const char* s, long* v) {
  if (!*s) return 0;
  char* end;
  *v = strtol(s, &end, 10);
  return !*end;
}

/* Splits a line into at most 7 tab-separated fields; returns how many. */
static int fields(char* line, char* f[7]) {
  int n = 0;
  f[n++] = line;
  for (char* p = line; *p; ++p)
    if (*p == '\t') {
      if (n == 7) return 8;
      *p = 0;
      f[n++] = p + 1;
    }
  return n;
}

static struct edh_process* running(struct edh_process* ps, size_t n, long pid) {
  for (size_t i = n; i-- > 0;)
    if (ps[i].running && ps[i].pid == pid) return &ps[i];
  return NULL;
}

/* Fills ps with the processes; returns their count, or -1 for a case this end leaves
 * (an L record: processes started without the allocator; too many processes). */
static long parse_records(char* text, struct edh_process* ps, size_t max) {
  size_t n = 0;
  for (char *line = text, *next; line; line = next) {
    next = cut(line, '\n');
    char* f[7];
    int nf = fields(line, f);
    if (strlen(f[0]) != 1) continue;
    char type = f[0][0];
    if (type == 'L' && nf == 6) return -1;
    if ((type == 'S' || type == 'F') && nf == 5) {
      long pid, ppid;
      if (!number(f[1], &pid) || !number(f[2], &ppid) || !unescape(f[3]) || !unescape(f[4])) continue;
      struct edh_process* was = running(ps, n, pid);
      if (was && type == 'S') was->end = "exec";
      if (was) was->running = 0;
      if (n == max) return -1;
      ps[n] = (struct edh_process){pid, ppid, f[3], f[4], "unknown", type == 'F', 1, -1, -1};
      ++n;
    } else if (type == 'E' && nf == 4) {
      long pid, hwm, peak;
      if (!number(f[1], &pid) || !number(f[2], &hwm) || !number(f[3], &peak)) continue;
      struct edh_process* p = running(ps, n, pid);
      if (!p) continue;
      p->end = "exit";
      if (hwm >= 0) p->hwm = hwm;
      if (peak >= 0) p->peak = peak;
      p->running = 0;
    }
  }
  return (long)n;
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int starts(const char* s, const char* prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* run::malloc_provider: the executable, an allocator family, glibc, or the object's name. */
static const char* provider(const struct edh_record* r, const struct edh_process* p) {
  if (!strcmp(p->object, p->exe)) return "executable";
  const char* base = base_name(p->object);
  for (int i = 0; i < r->n_prefixes; ++i)
    if (starts(base, r->prefixes[i][0])) return r->prefixes[i][1];
  if (starts(base, "libc.so") || starts(base, "libc-")) return "glibc";
  return base;
}

/* ---- writing ---- */

struct out {
  char* buf;
  size_t len, cap;
  int ok;
};

static void put_n(struct out* o, const char* s, size_t n) {
  if (!o->ok || o->cap - o->len < n + 1) {
    o->ok = 0;
    return;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
}

static void put(struct out* o, const char* s) { put_n(o, s, strlen(s)); }

static void put_ll(struct out* o, long long v) {
  char tmp[24];
  int n = 0;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do tmp[n++] = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) tmp[n++] = '-';
  char rev[24];
  for (int i = 0; i < n; ++i) rev[i] = tmp[n - 1 - i];
  put_n(o, rev, (size_t)n);
}

/* units / scale as JSON's shortest decimal, as JsonWriter writes a double (1.0, 0.25): exact
 * for the integers of microseconds and nanoseconds this end has. */
static void put_fraction(struct out* o, long long units, long long scale, int digits) {
  put_ll(o, units / scale);
  char frac[12];
  long long rest = units % scale;
  int n = digits;
  for (int i = digits - 1; i >= 0; --i, rest /= 10) frac[i] = (char)('0' + rest % 10);
  while (n > 1 && frac[n - 1] == '0') --n;
  put(o, ".");
  put_n(o, frac, (size_t)n);
}

/* A string this end writes without escapes: printable ASCII but for " and \. Anything else is
 * edashim-finish's (its writer escapes and checks UTF-8). */
static int plain(const char* s) {
  for (; *s; ++s)
    if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\') return 0;
  return 1;
}

static void put_string(struct out* o, const char* s) {
  if (!plain(s)) o->ok = 0;
  put(o, "\"");
  put(o, s);
  put(o, "\"");
}

static void put_key(struct out* o, const char* key) {
  put(o, ",\"");
  put(o, key);
  put(o, "\":");
}

static void put_optional(struct out* o, long v) {
  if (v < 0) put(o, "null");
  else put_ll(o, v);
}

static void put_process(struct out* o, const struct edh_record* r, const struct edh_process* p, int first) {
  put(o, first ? "{\"pid\":" : ",{\"pid\":");
  put_ll(o, p->pid);
  put_key(o, "ppid");
  put_ll(o, p->ppid);
  put_key(o, "exe");
  put_string(o, p->exe);
  put_key(o, "malloc");
  put_string(o, p->object);
  put_key(o, "provider");
  put_string(o, provider(r, p));
  put_key(o, "forked");
  put(o, p->forked ? "true" : "false");
  put_key(o, "end");
  put_string(o, p->end);
  put_key(o, "vm_hwm_kb");
  put_optional(o, p->hwm);
  put_key(o, "vm_peak_kb");
  put_optional(o, p->peak);
  put(o, "}");
}

/* run::verify_allocator's verdict for a family (an absolute path is edashim-finish's). */
static void put_verdict(struct out* o, const struct edh_record* r, const struct edh_process* ps, size_t n) {
  const char* want = strcmp(r->allocator_to_find, "system") == 0 ? "glibc" : r->allocator_to_find;
  const struct edh_process* wrong = NULL;
  long long tools = 0;
  for (size_t i = 0; i < n; ++i) {
    if (*r->launcher && !strcmp(ps[i].exe, r->launcher)) continue;
    ++tools;
    if (!wrong && strcmp(provider(r, &ps[i]), want) != 0) wrong = &ps[i];
  }
  put_key(o, "allocator_verified");
  put(o, wrong ? "false" : "true");
  put_key(o, "verification");
  put(o, "\"");
  if (wrong) {
    put(o, "pid ");
    put_ll(o, wrong->pid);
    put(o, " (");
    put(o, wrong->exe);
    put(o, ") got malloc from ");
    put(o, wrong->object);
    put(o, ", not ");
  } else {
    put_ll(o, tools);
    put(o, " process(es) recorded, all with malloc from ");
  }
  put(o, want);
  put(o, "\"");
}

static long long at_least_0(long long v) { return v < 0 ? 0 : v; }

size_t edh_line(const struct edh_record* r, const struct edh_figures* f, int scratch_in_use, char* probe_text,
                size_t probe_len, struct edh_process* ps, size_t max_processes, char* out, size_t cap) {
  if (r->flow_top || !*r->log || strlen(probe_text) != probe_len) return 0;
  long n = 0;
  if (r->probed) {
    if (!*r->allocator_to_find || r->allocator_to_find[0] == '/' || !plain(r->allocator_to_find)) return 0;
    n = parse_records(probe_text, ps, max_processes);
    long tools = 0;
    for (long i = 0; i < n; ++i) tools += !*r->launcher || strcmp(ps[i].exe, r->launcher) != 0;
    if (n < 0 || tools == 0) return 0; /* nothing recorded: edashim-finish says why */
  }

  struct out o = {out, 0, cap, 1};
  put(&o, r->line);
  /* run::ending_from_notice: figures less edashim's own part of the process. */
  put_key(&o, "wall_s");
  if (f->end_ns > r->start_ns) put_fraction(&o, f->end_ns - r->start_ns, 1000000000LL, 9);
  else put(&o, "null");
  put_key(&o, "user_s");
  put_fraction(&o, at_least_0((f->utime_us - r->own[0]) + (f->cutime_us - r->own[2])), 1000000LL, 6);
  put_key(&o, "sys_s");
  put_fraction(&o, at_least_0((f->stime_us - r->own[1]) + (f->cstime_us - r->own[3])), 1000000LL, 6);
  long peak = f->hwm_kb > f->cmaxrss_kb ? f->hwm_kb : f->cmaxrss_kb;
  if (f->maxrss_kb > r->own[4] && f->maxrss_kb > peak) peak = f->maxrss_kb;
  put_key(&o, "max_rss_kb");
  put_optional(&o, peak > 0 ? peak : -1);
  int code = (f->wait_status >> 8) & 0xff; /* a finish is always an exit */
  put_key(&o, "exit_code");
  put_ll(&o, code);
  put_key(&o, "signal");
  put(&o, "null");
  if (scratch_in_use >= 0) {
    put_key(&o, "scratch_left_in_use");
    put(&o, scratch_in_use ? "true" : "false");
  }
  put_key(&o, "status");
  put_ll(&o, code);
  if (!r->probed) { /* pipeline/run_line.cpp's verification_fields: the note, no records */
    put_key(&o, "processes");
    put(&o, "null");
    put_key(&o, "allocator_verified");
    put(&o, "false");
    put_key(&o, "verification");
    put_string(&o, r->unprobed_note);
    put(&o, "}");
    return o.ok ? o.len : 0;
  }
  put_key(&o, "processes");
  put(&o, "[");
  for (long i = 0; i < n; ++i) put_process(&o, r, &ps[i], i == 0);
  put(&o, "]");
  put_verdict(&o, r, ps, (size_t)n);
  put_key(&o, "not_applied");
  put(&o, "[]}");
  return o.ok ? o.len : 0;
}
