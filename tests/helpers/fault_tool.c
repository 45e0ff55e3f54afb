// A stand-in tool for the hardening suites: what helper_tool does not do. Catches one signal
// and then dies of it (so the status is the one the signal gives), forks a daemon, fills its
// TMPDIR until the disk is full, reads a line from a pipe or a terminal, keeps a file in its
// TMPDIR (from the main process, or from a daemon that outlives it); counts every delivery of
// a signal with its value, signals its parent, stops itself, dies of a signal, says what it
// sees of its parent; and, as a sender, queues a signal with a value.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t received = 0;
static void count(int sig) { (void)sig; received++; }

static void write_file(const char* path, const char* text) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE* f = fopen(tmp, "w");
  if (!f) exit(90);
  fputs(text, f);
  fclose(f);
  rename(tmp, path);  // whole or nothing for a reader polling the file
}

static void sleep_seconds(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// Every delivery of the counted signal, with its si_value and whether its sender was the parent.
static volatile sig_atomic_t deliveries = 0;
static int values[64];
static void count_info(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  if (deliveries < 64) values[deliveries] = info->si_code == SI_QUEUE ? info->si_value.sival_int : -1;
  deliveries++;
}

static int is_stop(int sig) { return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU; }

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s catch SIG FILE | daemon PIDFILE | fill | readline | hold-tmp SECS | late-tmp FILE SECS\n", argv[0]);
    return 2;
  }
  const char* mode = argv[1];
  if (!strcmp(mode, "catch") && argc == 4) {
    // Counts SIG; 0.3 s after the first one writes "count N" to FILE, then dies of SIG the
    // default way (or exits 40 when that does not end a process: CHLD, CONT, URG, WINCH, stops).
    int sig = atoi(argv[2]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count;
    sigaction(sig, &sa, NULL);
    char ready[64];
    snprintf(ready, sizeof ready, "ready %d\n", (int)getpid());
    write_file(argv[3], ready);
    for (int i = 0; i < 600 && !received; ++i) sleep_seconds(0.05);
    sleep_seconds(0.3);
    char done[64];
    snprintf(done, sizeof done, "count %d\n", (int)received);
    write_file(argv[3], done);
    if (!is_stop(sig)) {
      signal(sig, SIG_DFL);
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, sig);
      sigprocmask(SIG_UNBLOCK, &set, NULL);
      raise(sig);
    }
    return 40;
  }
  if (!strcmp(mode, "count") && argc == 5) {
    // Counts every delivery of SIG for SECONDS, then writes "count N values V,V,..." to FILE
    // (the value of each one queued with sigqueue, -1 for one sent with kill) and exits 0.
    int sig = atoi(argv[2]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = count_info;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(sig, &sa, NULL);
    char ready[64];
    snprintf(ready, sizeof ready, "ready %d\n", (int)getpid());
    write_file(argv[3], ready);
    sleep_seconds(atof(argv[4]));
    char done[1024];
    int at = snprintf(done, sizeof done, "count %d values ", (int)deliveries);
    for (int i = 0; i < deliveries && i < 64; ++i)
      at += snprintf(done + at, sizeof done - at, "%s%d", i ? "," : "", values[i]);
    snprintf(done + at, sizeof done - at, "\n");
    write_file(argv[3], done);
    return 0;
  }
  if (!strcmp(mode, "sigqueue") && argc == 6) {
    // sigqueue PID SIG FIRST N: queues SIG to PID N times, with the values FIRST, FIRST+1, ...,
    // 20 ms apart.
    int pid = atoi(argv[2]), sig = atoi(argv[3]), first = atoi(argv[4]), n = atoi(argv[5]);
    for (int i = 0; i < n; ++i) {
      union sigval v;
      v.sival_int = first + i;
      if (sigqueue(pid, sig, v) != 0) {
        perror("sigqueue");
        return 1;
      }
      sleep_seconds(0.02);
    }
    return 0;
  }
  if (!strcmp(mode, "pair") && argc == 4) {
    // pair PID SIG: what timeout(1) sends, back to back: SIG to PID, then to its process group.
    int pid = atoi(argv[2]), sig = atoi(argv[3]);
    if (kill(pid, sig) != 0 || kill(-getpgid(pid), sig) != 0) {
      perror("kill");
      return 1;
    }
    return 0;
  }
  if (!strcmp(mode, "kill-parent") && argc == 3) {
    // Sends SIG to its parent (as `kill -SIG $PPID` in a script), then says it is alive.
    kill(getppid(), atoi(argv[2]));
    sleep_seconds(0.3);
    printf("alive\n");
    return 0;
  }
  if (!strcmp(mode, "stop-self") && argc == 3) {
    // Stops itself with SIG at its default action, then says it was continued; exits 0.
    int sig = atoi(argv[2]);
    signal(sig, SIG_DFL);
    printf("stopping\n");
    fflush(stdout);
    raise(sig);
    printf("continued\n");
    return 0;
  }
  if (!strcmp(mode, "leak") && argc == 2) {
    // Loses 100 bytes, for a leak checker to find (issue 25: valgrind must check the tool).
    volatile char* lost = malloc(100);
    lost[0] = 1;
    lost = NULL;
    return 0;
  }
  if (!strcmp(mode, "observe") && argc == 2) {
    // What a tool can see of its parent: the parent-death signal, whether it leads its own
    // process group, and the name of its parent's executable.
    int pdeath = 0;
    prctl(PR_GET_PDEATHSIG, &pdeath);
    char link[64], exe[4096] = "";
    snprintf(link, sizeof link, "/proc/%d/exe", (int)getppid());
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    const char* base = strrchr(exe, '/');
    printf("pdeathsig %d own_group %d parent %s\n", pdeath, getpgrp() == getpid(), base ? base + 1 : exe);
    return 0;
  }
  if (!strcmp(mode, "die") && argc == 3) {
    // Dies of SIG at its default action (a core dump where the signal makes one and the limit
    // and the core pattern allow).
    int sig = atoi(argv[2]);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 41;
  }
  if (!strcmp(mode, "daemon") && argc == 3) {
    // The parent exits 7 at once; the child detaches, records its pid and lives 30 s.
    pid_t pid = fork();
    if (pid < 0) return 91;
    if (pid > 0) return 7;
    setsid();
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    char text[32];
    snprintf(text, sizeof text, "%d\n", (int)getpid());
    write_file(argv[2], text);
    sleep_seconds(30);
    return 0;
  }
  if (!strcmp(mode, "hold-tmp") && argc == 3) {
    // Writes $TMPDIR/mine, waits SECS, then checks it is still there: prints "kept" (exit 0)
    // or "lost" (exit 1), as a tool whose temporary file vanished under it would fail.
    const char* t = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/mine", t ? t : "/tmp");
    write_file(path, "x");
    sleep_seconds(atof(argv[2]));
    struct stat st;
    int kept = stat(path, &st) == 0;
    printf("%s\n", kept ? "kept" : "lost");
    return kept ? 0 : 1;
  }
  if (!strcmp(mode, "late-tmp") && argc == 4) {
    // The parent exits 0 at once; the child detaches, waits SECS, writes $TMPDIR/late (as a
    // daemon or a build server does long after its starter ended) and writes "ok" or the
    // errno name to FILE.
    pid_t pid = fork();
    if (pid < 0) return 91;
    if (pid > 0) return 0;
    setsid();
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    sleep_seconds(atof(argv[3]));
    const char* t = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/late", t ? t : "/tmp");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char text[64];
    snprintf(text, sizeof text, "%s\n", fd >= 0 && write(fd, "x", 1) == 1 ? "ok" : strerrorname_np(errno));
    write_file(argv[2], text);
    return 0;
  }
  if (!strcmp(mode, "fill")) {
    // Writes to $TMPDIR/fill until a write fails; prints the errno name and the bytes written.
    const char* t = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/fill", t ? t : "/tmp");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
      printf("open %s: %s\n", path, strerrorname_np(errno));
      return 1;
    }
    static char block[4096];
    memset(block, 'x', sizeof block);
    long long total = 0;
    for (;;) {
      ssize_t n = write(fd, block, sizeof block);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        printf("write: %s after %lld bytes\n", strerrorname_np(errno), total);
        close(fd);
        return errno == ENOSPC ? 0 : 1;
      }
      total += n;
      if (total > (1LL << 30)) {
        printf("no error after 1 GiB\n");
        return 1;
      }
    }
  }
  if (!strcmp(mode, "readline")) {
    // One line from stdin; says whether stdin is a terminal; exits 3.
    printf("reading\n");
    fflush(stdout);
    char line[1024] = "";
    if (!fgets(line, sizeof line, stdin)) strcpy(line, "(eof)");
    line[strcspn(line, "\n")] = 0;
    printf("got: %s tty=%d\n", line, isatty(0));
    return 3;
  }
  fprintf(stderr, "%s: unknown mode %s\n", argv[0], mode);
  return 2;
}
