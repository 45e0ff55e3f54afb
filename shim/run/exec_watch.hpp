#pragma once
// Exec in place: edashim becomes the tool (same pid, group, session, terminal, limits), and a
// watcher that is nobody's child the tool can see writes the run's line. The watcher learns the
// tool's end from the tool's own process (the probe's exit notice, probe/probe.c: status and
// resource use, told before the process is gone, so the line is in the log before the caller's
// wait returns) or else from the kernel (a pidfd: the status once the caller has reaped it).
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "util/fd.hpp"

namespace run {

// The probe's exit notice is armed by this variable: "PID:LOCKFD:DEV:INO:SOCKET" (LOCKFD "-"
// when the run has no scratch lock to let go of).
inline constexpr const char* kExitVar = "__EDASHIM_EXIT";

// Pure: the variable's value. `socket` must fit a Unix socket's path (exit_socket_fits).
std::string exit_var_value(pid_t pid, int lock_fd, unsigned long long lock_dev, unsigned long long lock_ino,
                           const std::string& socket);
bool exit_socket_fits(const std::string& socket);

// What the tool's own process told at its end (probe/probe.c's notice). Pure parse; nullopt for
// anything malformed.
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

// How the tool ended, as far as anyone could tell. Unknown: nullopt.
struct Ending {
  std::optional<int> wait_status;
  std::optional<double> wall_s, user_s, sys_s;
  std::optional<long> max_rss_kb;
  bool told = false;  // the tool's process told (the line is written before it is gone)
};

// Pure: the tool's figures from its notice, without edashim's part. The peak is the largest of
// the last image's VmHWM, its reaped children's, and the process's ru_maxrss when that grew past
// what edashim had reached itself (an earlier image of the tool's, before an exec).
void figures_from_notice(const ExitNotice& n, const OwnUsage& own, Ending& e);

// Whether this kernel lets a process that is not the parent wait for the tool (pidfd_open).
bool pidfd_available();

// The watcher's side, run in the watcher after it started: `first` (housekeeping and the start
// of the line, off the tool's path), then, once the tool has ended, `finish` (the rest of the
// line, written; returns what edashim would say on stderr, "" for nothing), whose text reaches
// the tool's stderr through the notice's answer when there was a notice; then `after`, what
// nobody waits for (removing directories), once the tool's process is gone: a tool that told
// waits for the answer, and its caller for the tool.
struct WatchJobs {
  std::function<void()> first;
  std::function<std::string(const Ending&)> finish;
  std::function<void()> after;
};

// One exec in place.
class InPlace {
 public:
  // Before the fork: a pidfd for edashim's own process (the tool's to be), the socket the notice
  // comes to (empty path: none), a pipe to the watcher. False (errno set) when the kernel has no
  // pidfd; a socket that cannot be made only means no notice.
  bool prepare(const std::string& socket_path);
  // Starts the watcher (a double clone: its parent exits at once and is reaped here, so the tool
  // has no child of edashim's). Descriptors the watcher keeps besides its own: `keep` and
  // `keep_too` (-1: none).
  // Returns 0, or the clone's errno.
  int start(const WatchJobs& jobs, int keep, long long start_ns, int keep_too = -1);
  // The watcher's life once the exec is done (`own`: edashim's use before it, from the pipe).
  // Never returns.
  [[noreturn]] void watch(const WatchJobs& jobs, std::optional<OwnUsage> own, long long start_ns);
  // Just before the exec: edashim's own use, for the watcher to take off the tool's.
  void before_exec();
  // The exec failed: the watcher leaves without a line (edashim writes it).
  void call_off();
  bool notice_ready() const { return listen_fd_ >= 0; }

 private:
  struct Waited {
    std::optional<ExitNotice> notice;
    std::optional<OwnUsage> own;  // from the pipe, before the exec
    util::Fd conn;             // the notice's connection, answered once the line is written
    bool ended_first = false;  // the tool was gone before (or while) it told
    long long end_ns = 0;
  };
  Waited wait_for_end();
  Ending ending(const Waited& w, long long start_ns);

  // Plain numbers, not Fds: before_exec closes this process's copies while the watcher shares
  // its memory, and the watcher then uses its own copies by these numbers, read from the members
  // as the exec left them (an Fd's reset would write -1 there).
  int pidfd_ = -1, listen_fd_ = -1;
  util::Fd pipe_r_, pipe_w_;  // the watcher's end goes to it by number (start)
  pid_t self_ = 0;
  std::string socket_path_;
};

}  // namespace run
