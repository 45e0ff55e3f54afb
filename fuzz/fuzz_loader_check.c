// Fuzzes the loader check (probe/loader_check.c over elf/elf_read.c): the exec hook runs it in
// every process of a run on whatever file is exec'd, so a crash here is a crash in the tool.
#include <stdint.h>
#include <string.h>
#include "probe/loader_check.h"

struct mem { const uint8_t* p; size_t n; };
static long rd(void* ctx, unsigned long long off, void* buf, unsigned long n) {
  struct mem* m = ctx;
  if (off >= m->n) return 0;
  if (n > m->n - off) n = (unsigned long)(m->n - off);
  memcpy(buf, m->p + off, n);
  return (long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  struct mem m = {data, size};
  char interp[64], needs[512] = "", missing[64], best[64];
  int k = edh_exec_kind(rd, &m, interp, sizeof interp);
  if (k == EDH_DYNAMIC && strlen(interp) >= sizeof interp) __builtin_trap();
  (void)edh_may_start_programs(rd, &m);
  (void)edh_needed_glibc(rd, &m, needs, sizeof needs);
  if (strlen(needs) >= sizeof needs) __builtin_trap();
  (void)edh_libc_covers(rd, &m, "GLIBC_2.2.5 GLIBC_2.34", missing, sizeof missing, best, sizeof best);
  return 0;
}
