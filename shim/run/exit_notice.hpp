#pragma once
// Exec in place: edashim becomes the tool (same pid, group, session, terminal, limits) and
// starts nothing. The tool's own process finishes the run at its normal end: the probe library
// (probe/probe.c) takes the process's figures and execs edashim in the same process, which
// writes the line (pipeline/finish.cpp) and exits with the tool's status. This is what passes
// between the two: the variable that arms the probe, and the figures it hands over.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace run {

// Arms the probe's finish in the tool's environment: "PID:LOCKFD:DEV:INO:DIRLEN:DIR:EXE".
// PID is the run's own process (the others, its children, finish nothing); LOCKFD, DEV, INO the
// scratch lock edashim hands down, which the process lets go of at its end (LOCKFD "-": none);
// DIR (DIRLEN bytes) the run's private directory, holding its unfinished line; EXE edashim.
inline constexpr const char* kExitVar = "__EDASHIM_EXIT";
// In the finishing edashim's environment (and nowhere else): the run's private directory.
inline constexpr const char* kFinishVar = "__EDASHIM_FINISH";
// argv[0] of the finishing edashim (`ps` shows it for the moment it takes).
inline constexpr const char* kFinishName = "edashim-finish";

// Pure: the variable's value.
std::string exit_var_value(pid_t pid, int lock_fd, unsigned long long lock_dev, unsigned long long lock_ino,
                           const std::string& dir, const std::string& exe);

// What the tool's own process told at its end (probe/probe.c): "<wait status> <utime us>
// <stime us> <cutime us> <cstime us> <maxrss kB> <cmaxrss kB> <VmHWM kB> <CLOCK_MONOTONIC ns>\n".
// Pure parse; nullopt for anything malformed.
struct ExitNotice {
  int wait_status = 0;
  long long utime_us = 0, stime_us = 0, cutime_us = 0, cstime_us = 0;
  long maxrss_kb = 0, cmaxrss_kb = 0;
  long hwm_kb = -1;  // VmHWM of the image that ended (-1: unknown)
  long long end_ns = 0;  // CLOCK_MONOTONIC when it told
};
std::optional<ExitNotice> parse_exit_notice(std::string_view text);

// edashim's own use of its process just before the exec: the process's counters go on across
// an exec, so this part is edashim's, not the tool's.
struct OwnUsage {
  long long utime_us = 0, stime_us = 0, cutime_us = 0, cstime_us = 0;
  long maxrss_kb = 0;
};
OwnUsage own_usage_now();

// How the tool ended, as far as anyone could tell. Unknown: nullopt.
struct Ending {
  std::optional<int> wait_status;
  std::optional<double> wall_s, user_s, sys_s;
  std::optional<long> max_rss_kb;
};

// Pure: the tool's figures from its notice, without edashim's part. The peak is the largest of
// the last image's VmHWM, its reaped children's, and the process's ru_maxrss when that grew past
// what edashim had reached itself (an earlier image of the tool's, before an exec). The wall
// time runs from `start_ns` (edashim's clock before planning) to the notice's end.
Ending ending_from_notice(const ExitNotice& n, const OwnUsage& own, long long start_ns);

}  // namespace run
