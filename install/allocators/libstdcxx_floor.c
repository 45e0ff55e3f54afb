/* Linked into edashim's tcmalloc (build.sh) beside the parts of libstdc++ it carries (linked
 * statically and hidden, so that no second C++ runtime reaches a tool). Those parts were compiled
 * against Debian 12's glibc; what they ask of a newer glibc than the floor (2.28) is defined
 * here, hidden, so that the library still loads on an older one.
 *
 * glibc 2.32's __libc_single_threaded: libstdc++'s static-initialisation guards and reference
 * counts skip their atomic operations while it is 1. 0, never "single-threaded", keeps them
 * atomic always, as libstdc++ is on a glibc before 2.32. */
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
