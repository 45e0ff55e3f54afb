/* malloc_count.so: counts malloc/free/realloc/calloc/aligned calls and request
 * sizes of a dynamically linked program, forwarding every call to the next
 * allocator (dlsym RTLD_NEXT).  Measurement aid for issue 29, not part of
 * edashim.  Build:  cc -O2 -shared -fPIC -o malloc_count.so malloc_count.c -ldl
 * Use:    MALLOC_COUNT_OUT=counts.txt LD_PRELOAD=./malloc_count.so prog ...
 * Live bytes are tracked with malloc_usable_size, so the peak is in the
 * allocator's usable bytes (>= requested), which is what the heap must hold.
 * `tick T M F B` lines: at T seconds after the first call, M allocations, F frees and
 * B bytes requested so far (about once a second). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NCLASS = 65 };
enum { K_MALLOC, K_FREE, K_REALLOC, K_CALLOC, K_ALIGNED, K_FREE_NULL, NKIND };
static const char *kind_name[NKIND] = {"malloc",  "free",    "realloc",
                                       "calloc",  "aligned", "free(NULL)"};

static uint64_t calls[NKIND];
/* class c holds requests with size in (2^(c-1), 2^c]; class 0 holds size 0 and 1 */
static uint64_t size_hist[NCLASS];
static uint64_t bytes_requested;
static int64_t live_bytes, peak_live;
static struct timespec t_start;

/* A timeline, so calls can be put against VPR's phases: every 2^16 counted calls the
 * clock is read, and once per second the running totals are kept (vDSO clock: cheap). */
enum { NTICK = 4096 };
static struct { double t; uint64_t malloc_calls, free_calls, bytes; } tick[NTICK];
static int nticks;
static double next_tick = 1.0;
static uint64_t since_check;

static double elapsed(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t_start.tv_sec) + (t.tv_nsec - t_start.tv_nsec) / 1e9;
}

static void maybe_tick(void) {
  if ((++since_check & 0xffff) != 0 || nticks >= NTICK) return;
  double now = elapsed();
  if (now < next_tick) return;
  next_tick = now + 1.0;
  tick[nticks].t = now;
  tick[nticks].malloc_calls = calls[K_MALLOC] + calls[K_CALLOC] + calls[K_ALIGNED];
  tick[nticks].free_calls = calls[K_FREE];
  tick[nticks].bytes = bytes_requested;
  ++nticks;
}

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_realloc)(void *, size_t);
static void *(*real_calloc)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static size_t (*real_usable)(void *);

/* dlsym may call calloc before the real one is known: serve it from here. */
static char boot_buf[1 << 16];
static size_t boot_used;
static int resolving;

static int in_boot(const void *p) {
  return (const char *)p >= boot_buf && (const char *)p < boot_buf + sizeof boot_buf;
}

static void *boot_alloc(size_t n) {
  size_t off = (boot_used + 15) & ~(size_t)15;
  if (off + n > sizeof boot_buf) return NULL;
  boot_used = off + n;
  return boot_buf + off;
}

static void resolve(void) {
  if (real_malloc || resolving) return;
  resolving = 1;
  real_free = dlsym(RTLD_NEXT, "free");
  real_realloc = dlsym(RTLD_NEXT, "realloc");
  real_calloc = dlsym(RTLD_NEXT, "calloc");
  real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
  real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
  real_memalign = dlsym(RTLD_NEXT, "memalign");
  real_usable = dlsym(RTLD_NEXT, "malloc_usable_size");
  clock_gettime(CLOCK_MONOTONIC, &t_start);
  real_malloc = dlsym(RTLD_NEXT, "malloc");
  resolving = 0;
}

static int size_class(size_t n) {
  return n <= 1 ? 0 : 64 - __builtin_clzll((unsigned long long)(n - 1));
}

static void count(int kind, size_t n) {
  __atomic_fetch_add(&calls[kind], 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&size_hist[size_class(n)], 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&bytes_requested, n, __ATOMIC_RELAXED);
  maybe_tick();
}

static void live_add(int64_t d) {
  int64_t now = __atomic_add_fetch(&live_bytes, d, __ATOMIC_RELAXED);
  if (now > peak_live) peak_live = now; /* racy max: fine for one thread */
}

static void *track(void *p) {
  if (p && real_usable) live_add((int64_t)real_usable(p));
  return p;
}

void *malloc(size_t n) {
  resolve();
  if (!real_malloc) return boot_alloc(n);
  count(K_MALLOC, n);
  return track(real_malloc(n));
}

void *calloc(size_t a, size_t b) {
  resolve();
  if (!real_calloc) return boot_alloc(a * b); /* static buffer is zeroed */
  count(K_CALLOC, a * b);
  return track(real_calloc(a, b));
}

void free(void *p) {
  if (!p) {
    __atomic_fetch_add(&calls[K_FREE_NULL], 1, __ATOMIC_RELAXED);
    return; /* free(NULL) is a no-op in every allocator */
  }
  if (in_boot(p)) return;
  resolve();
  __atomic_fetch_add(&calls[K_FREE], 1, __ATOMIC_RELAXED);
  if (real_usable) live_add(-(int64_t)real_usable(p));
  real_free(p);
}

void *realloc(void *p, size_t n) {
  resolve();
  if (in_boot(p)) { /* rare: move a bootstrap block to the real heap */
    void *q = malloc(n);
    if (q) memcpy(q, p, n); /* boot blocks are never larger than the buffer */
    return q;
  }
  if (!real_realloc) return boot_alloc(n);
  count(K_REALLOC, n);
  if (p && real_usable) live_add(-(int64_t)real_usable(p));
  return track(real_realloc(p, n));
}

int posix_memalign(void **out, size_t align, size_t n) {
  resolve();
  count(K_ALIGNED, n);
  int rc = real_posix_memalign(out, align, n);
  if (rc == 0) track(*out);
  return rc;
}

void *aligned_alloc(size_t align, size_t n) {
  resolve();
  count(K_ALIGNED, n);
  return track(real_aligned_alloc(align, n));
}

void *memalign(size_t align, size_t n) {
  resolve();
  count(K_ALIGNED, n);
  return track(real_memalign(align, n));
}

__attribute__((destructor)) static void dump(void) {
  const char *path = getenv("MALLOC_COUNT_OUT");
  if (!path) return;
  double secs = elapsed();
  static char buf[1 << 18];
  int len = snprintf(buf, sizeof buf, "seconds_counted %.3f\nbytes_requested %llu\n"
                     "peak_live_usable_bytes %lld\nlive_at_exit %lld\n",
                     secs, (unsigned long long)bytes_requested, (long long)peak_live,
                     (long long)live_bytes);
  for (int k = 0; k < NKIND; ++k)
    len += snprintf(buf + len, sizeof buf - len, "calls %s %llu\n", kind_name[k],
                    (unsigned long long)calls[k]);
  for (int c = 0; c < NCLASS; ++c)
    if (size_hist[c])
      len += snprintf(buf + len, sizeof buf - len, "size_le_2^%d %llu\n", c,
                      (unsigned long long)size_hist[c]);
  for (int i = 0; i < nticks && len < (int)sizeof buf - 100; ++i)
    len += snprintf(buf + len, sizeof buf - len, "tick %.2f %llu %llu %llu\n", tick[i].t,
                    (unsigned long long)tick[i].malloc_calls,
                    (unsigned long long)tick[i].free_calls, (unsigned long long)tick[i].bytes);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  ssize_t w = write(fd, buf, (size_t)len);
  (void)w;
  close(fd);
}
