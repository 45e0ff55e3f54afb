// A stand-in for what bench's tests need a measured tool to show on demand:
//   fds FILE          appends the list of its open descriptors ("0 1 2") as one line to FILE
//   timing OUT TEXT   prints a line with its own (varying) timing on stdout, as VPR does, then a
//                     stable line, and writes TEXT to OUT (a file whose content never varies)
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int list_fds(const char* out) {
  char line[4096] = "";
  DIR* d = opendir("/proc/self/fd");
  if (!d) return 3;
  int mine = dirfd(d);
  int fds[1024], n = 0;
  struct dirent* e;
  while ((e = readdir(d)) && n < 1024) {
    if (e->d_name[0] == '.') continue;
    int fd = atoi(e->d_name);
    if (fd != mine) fds[n++] = fd;
  }
  closedir(d);
  // readdir's order is the kernel's; sort for a stable line.
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && fds[j - 1] > fds[j]; --j) {
      int t = fds[j];
      fds[j] = fds[j - 1];
      fds[j - 1] = t;
    }
  for (int i = 0; i < n; ++i) {
    char num[16];
    snprintf(num, sizeof num, i ? " %d" : "%d", fds[i]);
    strncat(line, num, sizeof line - strlen(line) - 1);
  }
  strncat(line, "\n", sizeof line - strlen(line) - 1);
  int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return 4;
  if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) return 5;
  return close(fd) == 0 ? 0 : 6;
}

static int timing(const char* out, const char* text) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  printf("The entire flow took %ld.%09ld seconds\n", (long)ts.tv_sec, ts.tv_nsec);
  printf("result: stable\n");
  FILE* f = fopen(out, "we");
  if (!f) return 4;
  fputs(text, f);
  return fclose(f) == 0 ? 0 : 5;
}

int main(int argc, char** argv) {
  if (argc == 3 && !strcmp(argv[1], "fds")) return list_fds(argv[2]);
  if (argc == 4 && !strcmp(argv[1], "timing")) return timing(argv[2], argv[3]);
  fprintf(stderr, "usage: %s fds FILE | timing OUT TEXT\n", argv[0]);
  return 2;
}
