// A stand-in tool for the ways a process can end, which no real tool does on demand: each mode
// first uses some CPU and memory (so the log line's figures can be checked), then ends that way.
//   exit_tool main-returns N | exit N | _exit N | thread-exit N | segv | kill-self SIG | daemon FILE
//   exit_tool exec-self N | exec PROGRAM ARGS... | wait-all | hold SECONDS
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// About 0.2 s of CPU and 40 MiB touched: figures far from edashim's own few milliseconds.
static void work(void) {
  size_t size = 40u << 20;
  volatile char* p = malloc(size);
  for (size_t i = 0; i < size; i += 4096) p[i] = 1;
  struct timespec a, b;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  do clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 200000000L);
  free((void*)p);
}

static void* exit_from_thread(void* arg) {
  exit(*(int*)arg);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* mode = argv[1];
  int n = argc > 2 ? atoi(argv[2]) : 0;
  if (!strcmp(mode, "exec-self") && getenv("EXIT_TOOL_AGAIN")) {
    work();
    return n;
  }
  if (strcmp(mode, "wait-all") && strcmp(mode, "hold")) work();
  if (!strcmp(mode, "main-returns")) return n;
  if (!strcmp(mode, "exit")) exit(n);
  if (!strcmp(mode, "_exit")) _exit(n);
  if (!strcmp(mode, "thread-exit")) {
    pthread_t t;
    pthread_create(&t, NULL, exit_from_thread, &n);
    for (;;) pause();
  }
  if (!strcmp(mode, "segv")) {
    signal(SIGSEGV, SIG_DFL);
    *(volatile int*)0 = 1;
  }
  if (!strcmp(mode, "kill-self")) {
    kill(getpid(), n);
    for (;;) pause();
  }
  if (!strcmp(mode, "daemon") && argc == 3) {
    // Forks a child that outlives it (in a session of its own) and writes its pid to FILE.
    pid_t c = fork();
    if (c == 0) {
      setsid();
      FILE* f = fopen(argv[2], "w");
      fprintf(f, "%d\n", getpid());
      fclose(f);
      sleep(30);
      _exit(0);
    }
    return 0;
  }
  if (!strcmp(mode, "exec-self")) {
    setenv("EXIT_TOOL_AGAIN", "1", 1);
    execv("/proc/self/exe", argv);
    return 126;
  }
  if (!strcmp(mode, "exec") && argc > 2) {
    execvp(argv[2], argv + 2);
    return 127;
  }
  if (!strcmp(mode, "wait-all")) {
    // Its own children only: wait(-1) must see exactly the one it started.
    pid_t c = fork();
    if (c == 0) _exit(3);
    int seen = 0, status;
    pid_t w;
    while ((w = wait(&status)) > 0) {
      printf("reaped %s\n", w == c ? "mine" : "a stranger");
      ++seen;
    }
    printf("children %d\n", seen);
    return 0;
  }
  if (!strcmp(mode, "hold")) {
    sleep((unsigned)n);
    return 0;
  }
  return 2;
}
