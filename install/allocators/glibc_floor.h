/* Force-included into every source of edashim's own allocator builds (build.sh: -include), as
 * shim/probe/glibc_compat.h is into the probe's, for the same reason: edashim preloads them into
 * every process of a tool on every node of a farm, so they must load on glibc 2.28 (RHEL 8)
 * although built on Debian 12's 2.36 (tests/suite/glibc_floor.sh checks every one with objdump).
 *
 * glibc 2.34 moved the pthread functions and dlsym from libpthread and libdl into libc under new
 * versions (pthread_sigmask: 2.32), and kept the old versions as compatibility symbols. ld.so
 * matches a versioned reference by version name in any loaded object (check_match in
 * elf/dl-lookup.c), so a reference bound to the old version finds libc's compatibility symbol
 * on 2.34+ and libpthread's or libdl's on older systems; build.sh links both (empty stubs on
 * 2.34+) so that they are loaded there. Only the functions these allocators call. What the
 * static parts of libstdc++ in tcmalloc ask of glibc is libstdcxx_floor.c's. */
#ifndef EDASHIM_ALLOCATOR_GLIBC_FLOOR_H
#define EDASHIM_ALLOCATOR_GLIBC_FLOOR_H
#if defined(__x86_64__)
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver pthread_create,pthread_create@GLIBC_2.2.5");
__asm__(".symver pthread_join,pthread_join@GLIBC_2.2.5");
__asm__(".symver pthread_key_create,pthread_key_create@GLIBC_2.2.5");
__asm__(".symver pthread_key_delete,pthread_key_delete@GLIBC_2.2.5");
__asm__(".symver pthread_setspecific,pthread_setspecific@GLIBC_2.2.5");
__asm__(".symver pthread_getspecific,pthread_getspecific@GLIBC_2.2.5");
__asm__(".symver pthread_mutex_trylock,pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver pthread_mutexattr_init,pthread_mutexattr_init@GLIBC_2.2.5");
__asm__(".symver pthread_mutexattr_destroy,pthread_mutexattr_destroy@GLIBC_2.2.5");
__asm__(".symver pthread_mutexattr_settype,pthread_mutexattr_settype@GLIBC_2.2.5");
__asm__(".symver pthread_sigmask,pthread_sigmask@GLIBC_2.2.5");
__asm__(".symver pthread_getname_np,pthread_getname_np@GLIBC_2.12");
__asm__(".symver pthread_setname_np,pthread_setname_np@GLIBC_2.12");
__asm__(".symver pthread_atfork,pthread_atfork@GLIBC_2.2.5");
__asm__(".symver pthread_once,pthread_once@GLIBC_2.2.5");
/* glibc 2.29 gave log2 (tcmalloc's sampler) a new version in libm; the old one stays. */
__asm__(".symver log2,log2@GLIBC_2.2.5");
#endif
#endif
