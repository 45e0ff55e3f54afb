// A stand-in tool for what no real tool does on demand: chosen exit codes, death by a signal,
// counting the signals it receives, ignoring SIGTERM, echoing its argv, environment and stdin.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t received = 0;
static void count(int sig) { (void)sig; received++; }

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (!f) exit(90);
  fputs(text, f);
  fclose(f);
}

static void sleep_seconds(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s exit N | signal SIG | args | env NAME | cat | count SIG FILE SECONDS | "
                    "ignore-term FILE SECONDS | sleep SECONDS | tmpdir | pidfile FILE SECONDS | ignored | reserve MB | touch MB\n", argv[0]);
    return 2;
  }
  const char* mode = argv[1];
  if (!strcmp(mode, "exit")) return atoi(argv[2]);
  if (!strcmp(mode, "signal")) {
    int sig = atoi(argv[2]);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    return 99;
  }
  if (!strcmp(mode, "args")) {
    for (int i = 0; i < argc; ++i) printf("%s\n", argv[i]);
    return 0;
  }
  if (!strcmp(mode, "env")) {
    for (int i = 2; i < argc; ++i) {
      const char* v = getenv(argv[i]);
      printf("%s=%s\n", argv[i], v ? v : "(unset)");
    }
    return 0;
  }
  if (!strcmp(mode, "cat")) {
    char buf[4096];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0)
      if (write(1, buf, (size_t)n) != n) return 3;
    return 0;
  }
  if (!strcmp(mode, "count")) {
    // Counts deliveries of one signal, then reports the count in FILE and exits 0.
    int sig = atoi(argv[2]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count;
    sigaction(sig, &sa, NULL);
    char ready[64];
    snprintf(ready, sizeof ready, "ready %d\n", (int)getpid());
    write_file(argv[3], ready);
    sleep_seconds(atof(argv[4]));
    char done[64];
    snprintf(done, sizeof done, "count %d\n", (int)received);
    write_file(argv[3], done);
    return 0;
  }
  if (!strcmp(mode, "ignore-term")) {
    signal(SIGTERM, SIG_IGN);
    write_file(argv[2], "ready\n");
    sleep_seconds(atof(argv[3]));
    return 5;
  }
  if (!strcmp(mode, "sleep")) {
    sleep_seconds(atof(argv[2]));
    return 0;
  }
  if (!strcmp(mode, "pidfile")) {
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    write_file(argv[2], pid);
    sleep_seconds(atof(argv[3]));
    return 0;
  }
  if (!strcmp(mode, "ignored")) {
    // The signals it started with ignored (what exec keeps of the caller's SIG_IGN).
    for (int sig = 1; sig < NSIG; ++sig) {
      struct sigaction old;
      if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN) printf("%d ", sig);
    }
    printf("\n");
    return 0;
  }
  if (!strcmp(mode, "tmpdir")) {
    const char* t = getenv("TMPDIR");
    printf("%s\n", t ? t : "(unset)");
    if (t) {
      char path[4096];
      snprintf(path, sizeof path, "%s/left-behind", t);
      write_file(path, "x");
    }
    return 0;
  }
  if (!strcmp(mode, "touch")) {  /* MB allocated and written: a peak RSS an allocator's own pages barely move */
    size_t bytes = (size_t)atol(argv[2]) << 20;
    char* p = malloc(bytes);
    if (!p) return 91;
    memset(p, 1, bytes);
    return p[bytes / 2] == 1 ? 0 : 92;
  }
  if (!strcmp(mode, "reserve")) {  /* address space never touched: VmPeak grows, RSS does not */
    size_t bytes = (size_t)atol(argv[2]) << 20;
    if (mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) == MAP_FAILED) return 91;
    return 0;
  }
  fprintf(stderr, "%s: unknown mode %s\n", argv[0], mode);
  return 2;
}
