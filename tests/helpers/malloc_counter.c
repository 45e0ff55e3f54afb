// Preloaded AFTER libedashim_probe.so (LD_PRELOAD=probe:counter), this library serves malloc by
// forwarding to glibc and counts the calls; at exit (its destructor runs after the probe's) it
// writes "malloc_counter: N" to stderr. The probe claims to call no malloc: with the probe
// recording and with it silent, N must be the same.
#include <stddef.h>
#include <unistd.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
extern void __libc_free(void*);

static unsigned long calls;

void* malloc(size_t n) { ++calls; return __libc_malloc(n); }
void* calloc(size_t a, size_t b) { ++calls; return __libc_calloc(a, b); }
void* realloc(void* p, size_t n) { ++calls; return __libc_realloc(p, n); }
void* memalign(size_t a, size_t n) { ++calls; return __libc_memalign(a, n); }
void* aligned_alloc(size_t a, size_t n) { ++calls; return __libc_memalign(a, n); }
int posix_memalign(void** out, size_t a, size_t n) {
  ++calls;
  *out = __libc_memalign(a, n);
  return *out ? 0 : 12;
}
void free(void* p) { __libc_free(p); }

__attribute__((destructor)) static void report(void) {
  char buf[64] = "malloc_counter: ";
  size_t len = 16;
  char tmp[24];
  int n = 0;
  unsigned long v = calls;
  do tmp[n++] = (char)('0' + v % 10), v /= 10;
  while (v);
  while (n) buf[len++] = tmp[--n];
  buf[len++] = '\n';
  if (write(2, buf, len) < 0) {
  }
}
