// Measures what libedashim_probe.so costs a process: starts PROGRAM N times plain and N times
// with the probe preloaded and recording, interleaved, and prints the median wall time of each
// and the difference in microseconds. Usage: spawn_timer N PROBE_LIB RECORD_FILE PROGRAM [ARGS]
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static posix_spawn_file_actions_t quiet;  // the program's output is not what is measured

static double run(char** argv, char** env) {
  double t0 = now_us();
  pid_t pid;
  if (posix_spawn(&pid, argv[0], &quiet, NULL, argv, env) != 0) exit(2);
  int status;
  waitpid(pid, &status, 0);
  return now_us() - t0;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: spawn_timer N PROBE_LIB RECORD_FILE PROGRAM [ARGS]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  char preload[4200], marker[4200];
  snprintf(preload, sizeof preload, "LD_PRELOAD=%s", argv[2]);
  snprintf(marker, sizeof marker, "__EDASHIM_PROBE=%s", argv[3]);
  // Both arms get environments of the same size, so the stack sits alike (allocators.md).
  char* plain_env[] = {"LD_PRELOAD=", "__EDASHIM_PROBE=", NULL};
  char* probe_env[] = {preload, marker, NULL};
  double* a = calloc((size_t)n, sizeof *a);
  double* b = calloc((size_t)n, sizeof *b);
  for (int i = 0; i < n; ++i) {
    a[i] = run(argv + 4, plain_env);
    b[i] = run(argv + 4, probe_env);
  }
  qsort(a, (size_t)n, sizeof *a, cmp);
  qsort(b, (size_t)n, sizeof *b, cmp);
  printf("plain_us=%.0f probe_us=%.0f overhead_us=%.0f\n", a[n / 2], b[n / 2], b[n / 2] - a[n / 2]);
  return 0;
}
