// Runs a command under a seccomp filter that refuses the system calls an exec in place leans
// on, as an old kernel, a container runtime's profile or a sandbox does (issue 46, case 1):
//   seccomp_refuse ENOSYS|EPERM [--only close_range|pidfd_open|pidfd_ioctl] COMMAND ARGS...
// Refused, with that errno: close_range (436), pidfd_open (434), and ioctl with a pidfd's
// command (type 0xFF, PIDFS_IOCTL_MAGIC: PIDFD_GET_INFO and the namespace ones; a filter cannot
// see what a descriptor is, only the command). --only refuses just that one. Everything else is
// allowed. x86_64 only: built for another architecture it says so and exits 77 (a skip) without
// running anything; a 32-bit call on x86_64 (another audit arch) is let through.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef __x86_64__
int main(void) {
  fprintf(stderr, "seccomp_refuse: x86_64 only\n");
  return 77;
}
#else
enum { kPidfdOpen = 434, kCloseRange = 436, kIoctl = 16 };

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: seccomp_refuse ENOSYS|EPERM [--only close_range|pidfd_open|pidfd_ioctl] COMMAND ARGS...\n");
    return 2;
  }
  unsigned err;
  if (!strcmp(argv[1], "ENOSYS")) err = ENOSYS;
  else if (!strcmp(argv[1], "EPERM")) err = EPERM;
  else {
    fprintf(stderr, "seccomp_refuse: %s: ENOSYS or EPERM\n", argv[1]);
    return 2;
  }
  int first = 2;
  int close_range = 1, pidfd_open = 1, pidfd_ioctl = 1;
  if (!strcmp(argv[2], "--only") && argc > 4) {
    close_range = !strcmp(argv[3], "close_range");
    pidfd_open = !strcmp(argv[3], "pidfd_open");
    pidfd_ioctl = !strcmp(argv[3], "pidfd_ioctl");
    if (!close_range && !pidfd_open && !pidfd_ioctl) {
      fprintf(stderr, "seccomp_refuse: --only %s: close_range, pidfd_open or pidfd_ioctl\n", argv[3]);
      return 2;
    }
    first = 4;
  }
  const unsigned refuse = SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA);
  // A call that is not refused jumps to ALLOW (the last instruction); each test below is
  // written with its jump offsets counted to it. Unused refusals compare against -1 (no call).
  unsigned no_call = 0xffffffffu;
  struct sock_filter filter[] = {
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 9),  // else ALLOW (11)
      /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, close_range ? kCloseRange : no_call, 6, 0),  // REFUSE (10)
      /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pidfd_open ? kPidfdOpen : no_call, 5, 0),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pidfd_ioctl ? kIoctl : no_call, 0, 5),  // else ALLOW
      // ioctl: the command's low 32 bits; its type (bits 8-15) 0xFF is pidfs' (linux/pidfd.h).
      /* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
      /* 7 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 8),
      /* 8 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
      /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xff, 0, 1),  // else ALLOW
      /* 10 */ BPF_STMT(BPF_RET | BPF_K, refuse),
      /* 11 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    perror("seccomp_refuse: PR_SET_NO_NEW_PRIVS");
    return 126;
  }
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    perror("seccomp_refuse: PR_SET_SECCOMP");
    return 126;
  }
  execvp(argv[first], argv + first);
  fprintf(stderr, "seccomp_refuse: %s: %s\n", argv[first], strerror(errno));
  return 127;
}
#endif
