// What a short child of a tool costs in each environment it can inherit: starts PROGRAM N times
// in a row per arm (posix_spawn + wait4), arms shuffled each round, and prints per round and arm
// the wall time and the children's CPU time (user+sys from wait4) per child, in microseconds.
// Usage: child_cost ROUNDS N PROGRAM ARM_FILE...   each ARM_FILE holds an environment, one
// NAME=VALUE a line (the arm's name is the file's base name). Output: "round arm wall_us cpu_us".
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ENV 512

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static char** read_env(const char* file) {
  FILE* f = fopen(file, "r");
  if (!f) { perror(file); exit(2); }
  char** env = calloc(MAX_ENV + 1, sizeof *env);
  char line[65536];
  int n = 0;
  while (n < MAX_ENV && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (strchr(line, '=')) env[n++] = strdup(line);
  }
  fclose(f);
  return env;
}

int main(int argc, char** argv) {
  if (argc < 5) { fprintf(stderr, "usage: child_cost ROUNDS N PROGRAM ARM_FILE...\n"); return 2; }
  int rounds = atoi(argv[1]), n = atoi(argv[2]), arms = argc - 4;
  char* prog = argv[3];
  char** envs[64];
  for (int a = 0; a < arms; ++a) envs[a] = read_env(argv[4 + a]);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  srand((unsigned)getpid());
  for (int r = 0; r < rounds; ++r) {
    int order[64];
    for (int a = 0; a < arms; ++a) order[a] = a;
    for (int a = arms - 1; a > 0; --a) { int j = rand() % (a + 1), t = order[a]; order[a] = order[j]; order[j] = t; }
    for (int k = 0; k < arms; ++k) {
      int a = order[k];
      char* cargv[] = {prog, NULL};
      double cpu = 0, t0 = now_us();
      for (int i = 0; i < n; ++i) {
        pid_t pid;
        if (posix_spawn(&pid, prog, &quiet, NULL, cargv, envs[a]) != 0) { perror("spawn"); return 1; }
        int st;
        struct rusage ru;
        if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st)) { fprintf(stderr, "child failed\n"); return 1; }
        cpu += ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
      }
      double wall = now_us() - t0;
      const char* name = strrchr(argv[4 + a], '/');
      printf("%d %s %.1f %.1f\n", r, name ? name + 1 : argv[4 + a], wall / n, cpu / n);
      fflush(stdout);
    }
  }
  return 0;
}
