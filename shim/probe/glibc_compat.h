/* Force-included into every source of the probe library (shim/CMakeLists.txt: -include), before
 * anything else: the library is preloaded into every process of a tool on every node of a farm,
 * and must load on glibc 2.28 (RHEL 8) and later although it is built on a newer one. ld.so
 * refuses a library that asks for a symbol version its glibc lacks ("version `GLIBC_2.34' not
 * found"), in every process, so nothing here may bind a version newer than GLIBC_2.28
 * (tests/suite/glibc_floor.sh checks the built library with objdump).
 *
 * - dlsym, dladdr1: glibc 2.34 moved them from libdl into libc under new versions. The old
 *   versions are still exported by 2.34+ libc (as compatibility symbols), and are the only ones
 *   older libdl has. ld.so matches a versioned reference by version name in any loaded object
 *   (check_match in elf/dl-lookup.c), not by the file that had it at link time, so binding the
 *   old versions and needing libdl.so.2 (a stub on 2.34+) works on both sides.
 * - stat and its kin: glibc 2.33 made them real functions (GLIBC_2.33); before, they were inline
 *   wrappers around __xstat. The system call is what both versions make, with the same struct
 *   stat on x86-64 and aarch64, the same return value and errno, and no malloc.
 * Nothing else of the library's calls is newer than GLIBC_2.14 (memcpy). */
#ifndef EDASHIM_GLIBC_COMPAT_H
#define EDASHIM_GLIBC_COMPAT_H

#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dladdr1,dladdr1@GLIBC_2.3.3");
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dlvsym,dlvsym@GLIBC_2.2.5");
#endif

static inline int edashim_compat_fstatat(int dirfd, const char* path, struct stat* st, int flags) {
  return (int)syscall(SYS_newfstatat, dirfd, path, st, flags);
}
static inline int edashim_compat_stat(const char* path, struct stat* st) {
  return edashim_compat_fstatat(AT_FDCWD, path, st, 0);
}
static inline int edashim_compat_lstat(const char* path, struct stat* st) {
  return edashim_compat_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}
static inline int edashim_compat_fstat(int fd, struct stat* st) {
  return edashim_compat_fstatat(fd, "", st, AT_EMPTY_PATH);
}
/* Function-like, so `struct stat` stays the type. */
#define stat(path, st) edashim_compat_stat(path, st)
#define lstat(path, st) edashim_compat_lstat(path, st)
#define fstat(fd, st) edashim_compat_fstat(fd, st)
#define fstatat(dirfd, path, st, flags) edashim_compat_fstatat(dirfd, path, st, flags)

#endif
