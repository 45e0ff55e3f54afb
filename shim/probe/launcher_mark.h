/* The mark by which the probe library knows it was loaded into edashim itself.
 *
 * A released edashim is static and loads nothing, but a dynamic one (a sanitizer build, a
 * distribution's build) started by a process of a run inherits that run's LD_PRELOAD: the probe
 * would record edashim as a process of the run, and the exec hook would route edashim's own
 * start of the real tool back to edashim, forever. Both edashim programs define this symbol and
 * export it (shim/CMakeLists.txt); the library refers to it weakly, so its address is non-null
 * exactly in edashim. Free to test: no system call, nothing read. */
#ifndef EDASHIM_LAUNCHER_MARK_H
#define EDASHIM_LAUNCHER_MARK_H

#ifdef __cplusplus
extern "C" {
#endif

extern const char edashim_launcher_mark
#ifndef EDASHIM_DEFINES_LAUNCHER_MARK
    __attribute__((weak))
#endif
    ;

#ifdef __cplusplus
}
#endif

#define EDASHIM_IN_LAUNCHER() (&edashim_launcher_mark != 0)

#endif
