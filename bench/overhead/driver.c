// Times process starts: each arm is one command with its own environment additions; arms run
// interleaved in a shuffled order every round, so drift on a noisy machine hits all alike.
// Usage: driver ROUNDS WARMUP 'name|VAR=V;VAR2=V|/path/cmd arg ...' ...
// Prints one line per arm: name, median, p5, p95 in microseconds.
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

typedef struct {
  char* name;
  char** argv;
  char** envp;
  double* us;
} Arm;

static char** split(char* s, const char* sep, int* n) {
  char** out = calloc(256, sizeof *out);
  *n = 0;
  for (char* tok = strtok(s, sep); tok && *n < 255; tok = strtok(NULL, sep)) out[(*n)++] = tok;
  return out;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double run_once(const Arm* a) {
  pid_t pid;
  double t0 = now_us();
  if (posix_spawn(&pid, a->argv[0], NULL, NULL, a->argv, a->envp) != 0) {
    perror(a->argv[0]);
    exit(1);
  }
  int status;
  waitpid(pid, &status, 0);
  double t = now_us() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "arm %s failed (status %d)\n", a->name, status);
    exit(1);
  }
  return t;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s ROUNDS WARMUP 'name|VAR=V;...|cmd args' ...\n", argv[0]);
    return 2;
  }
  int rounds = atoi(argv[1]), warmup = atoi(argv[2]), n = argc - 3;
  Arm* arms = calloc((size_t)n, sizeof *arms);
  int env_count = 0;
  while (environ[env_count]) env_count++;
  for (int i = 0; i < n; ++i) {
    char* spec = strdup(argv[3 + i]);
    char* name = strsep(&spec, "|");
    char* vars = strsep(&spec, "|");
    int nv = 0, na = 0;
    char** extra = split(vars, ";", &nv);
    arms[i].name = name;
    arms[i].argv = split(spec, " ", &na);
    arms[i].envp = calloc((size_t)(env_count + nv + 1), sizeof(char*));
    int k = 0;
    for (int v = 0; v < nv; ++v) arms[i].envp[k++] = extra[v];
    for (int e = 0; e < env_count; ++e) arms[i].envp[k++] = environ[e];
    arms[i].us = calloc((size_t)rounds, sizeof(double));
  }
  int* order = calloc((size_t)n, sizeof *order);
  srand(12345);
  for (int r = -warmup; r < rounds; ++r) {
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = n - 1; i > 0; --i) {
      int j = rand() % (i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int i = 0; i < n; ++i) {
      double t = run_once(&arms[order[i]]);
      if (r >= 0) arms[order[i]].us[r] = t;
    }
  }
  for (int i = 0; i < n; ++i) {
    qsort(arms[i].us, (size_t)rounds, sizeof(double), cmp);
    printf("%s\t%.0f\t%.0f\t%.0f\n", arms[i].name, arms[i].us[rounds / 2], arms[i].us[rounds * 5 / 100],
           arms[i].us[rounds * 95 / 100]);
  }
  return 0;
}
