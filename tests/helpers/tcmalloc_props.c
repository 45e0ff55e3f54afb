// Prints gperftools tcmalloc's numeric properties (MallocExtension), to show that an option
// edashim set in the environment was really read by the preloaded library. With "release"
// first, it frees a 32 MiB block and asks tcmalloc to return free memory to the system, so
// that tcmalloc.pageheap_unmapped_bytes says whether it could (TCMALLOC_DISABLE_MEMORY_RELEASE).
// Usage: tcmalloc_props [release] PROPERTY...   Exit 3 when tcmalloc is not what serves malloc.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*get_property_fn)(const char*, size_t*);
typedef void (*release_fn)(void);

int main(int argc, char** argv) {
  // Looked up, not linked: the helper runs under whatever allocator the test preloads.
  get_property_fn get = (get_property_fn)dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty");
  release_fn release = (release_fn)dlsym(RTLD_DEFAULT, "MallocExtension_ReleaseFreeMemory");
  if (!get || !release) {
    fprintf(stderr, "tcmalloc_props: no MallocExtension: tcmalloc is not loaded\n");
    return 3;
  }
  int i = 1;
  if (i < argc && strcmp(argv[i], "release") == 0) {
    size_t n = 32u << 20;
    char* volatile p = malloc(n);
    if (!p) return 2;
    memset(p, 1, n);  // touched, so that releasing it has something to give back
    free(p);
    release();
    ++i;
  }
  for (; i < argc; ++i) {
    size_t v = 0;
    if (!get(argv[i], &v)) {
      printf("%s=unknown\n", argv[i]);
      continue;
    }
    printf("%s=%zu\n", argv[i], v);
  }
  return 0;
}
