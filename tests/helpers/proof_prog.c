// A stand-in tool for the proof tests: built dynamic, -static, -static-pie, linked against
// libtbbmalloc_proxy, and with tcmalloc linked into the executable (tests/CMakeLists.txt).
//   proof_prog            allocates, prints a fixed text (compared byte for byte with and without edashim)
//   proof_prog fork       the same in a fork()ed child that exits without exec
//   proof_prog secure     prints AT_SECURE: the kernel's own word on secure-execution mode
//   proof_prog bigblock   prints whether a 40 MiB block came from mmap (glibc's default) or the heap
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned work(void) {
  unsigned sum = 0;
  for (int i = 1; i <= 2000; ++i) {
    unsigned* volatile p = malloc(sizeof(unsigned) * (size_t)(i % 97 + 1));
    p[0] = (unsigned)i;
    sum += p[0];
    free(p);
  }
  return sum;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "secure") == 0) {
    printf("AT_SECURE=%lu\n", getauxval(AT_SECURE));
    return 0;
  }
  if (strcmp(mode, "bigblock") == 0) {
    char* volatile big = malloc(40u << 20);
    big[0] = 1;
    printf("%s\n", mallinfo2().hblkhd > 0 ? "mmap" : "heap");
    free(big);
    return 0;
  }
  if (strcmp(mode, "fork") == 0) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      printf("child: %u\n", work());
      exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
  }
  printf("proof_prog: %u\n", work());
  return 3;  // a distinctive exit status, passed through unchanged
}
