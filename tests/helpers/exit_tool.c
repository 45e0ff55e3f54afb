// A stand-in tool for the ways a process can end, which no real tool does on demand: each mode
// first uses some CPU and memory (so the log line's figures can be checked), then ends that way.
//   exit_tool main-returns N | exit N | _exit N | thread-exit N | segv | kill-self SIG | daemon FILE
//   exit_tool exec-self N | exec PROGRAM ARGS... | wait-all | hold SECONDS
//   exit_tool no-exec N   exit(N) under a seccomp filter that refuses every exec from then on
//                         (EPERM): whatever finishes the run may start no program (x86_64;
//                         elsewhere it says so and exits 77)
// And what a tool sees of the processes and signals around it (issue 46), without the work:
//   exit_tool pending     the signals pending at its start: the SigPnd and ShdPnd lines of
//                         /proc/self/status, then sigpending()'s set ("pending: none" or numbers)
//   exit_tool reap-all    waitpid(-1, WNOHANG) at its start ("no child" for ECHILD, "a child
//                         running", "a child ended"), then reaps every child it has until ECHILD
//                         ("reaped N"): as pid 1 of a namespace, what init inherits
//   exit_tool fork N      forks N children that are all alive at once, then reaps them
//                         ("children N"); a fork refused: "fork K: ERROR", status 1
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

// Every execve and execveat refused with EPERM, in this process and what it forks.
static int refuse_exec(void) {
#ifdef __x86_64__
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof f / sizeof f[0], f};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
#else
  return 0;
#endif
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
  if (!strcmp(mode, "pending")) {
    // First, before anything of its own can make a signal pending.
    char line[256];
    FILE* f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
      if (!strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7)) fputs(line, stdout);
    if (f) fclose(f);
    sigset_t set;
    sigemptyset(&set);
    sigpending(&set);
    int any = 0;
    printf("pending:");
    for (int sig = 1; sig < 65; ++sig)
      if (sigismember(&set, sig) == 1) {
        printf(" %d", sig);
        any = 1;
      }
    printf("%s\n", any ? "" : " none");
    return 0;
  }
  if (!strcmp(mode, "reap-all")) {
    int status;
    pid_t w = waitpid(-1, &status, WNOHANG);
    printf("%s\n", w < 0 && errno == ECHILD ? "no child" : w == 0 ? "a child running" : w > 0 ? "a child ended" : strerror(errno));
    fflush(stdout);
    int reaped = w > 0;
    while ((w = wait(&status)) > 0 || errno == EINTR)
      if (w > 0) ++reaped;
    printf("reaped %d\n", reaped);
    return 0;
  }
  if (!strcmp(mode, "fork")) {
    // All alive at once: each waits for the pipe to end, which it does when the parent closes
    // its end after the last fork.
    int p[2];
    if (pipe(p) != 0) return 3;
    for (int i = 0; i < n; ++i) {
      pid_t c = fork();
      if (c < 0) {
        printf("fork %d: %s\n", i + 1, strerror(errno));
        return 1;
      }
      if (c == 0) {
        char b;
        close(p[1]);
        while (read(p[0], &b, 1) < 0 && errno == EINTR) {
        }
        _exit(0);
      }
    }
    close(p[1]);
    int seen = 0, status;
    pid_t w;
    while ((w = wait(&status)) > 0 || errno == EINTR)
      if (w > 0) ++seen;
    printf("children %d\n", seen);
    return 0;
  }
  if (strcmp(mode, "wait-all") && strcmp(mode, "hold")) work();
  // Left in stdio's buffer (a pipe's is not flushed by a newline): exit() writes it, _exit() and
  // an exec discard it.
  if (!strcmp(mode, "main-returns") || !strcmp(mode, "exit") || !strcmp(mode, "_exit") || !strcmp(mode, "thread-exit"))
    printf("buffered by %s\n", mode);
  if (!strcmp(mode, "main-returns")) return n;
  if (!strcmp(mode, "no-exec")) {
    if (!refuse_exec()) {
      fprintf(stderr, "exit_tool: no seccomp filter here (x86_64 only)\n");
      return 77;
    }
    exit(n);
  }
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
