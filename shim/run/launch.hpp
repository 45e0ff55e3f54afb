#pragma once
// Starting the tool and waiting for it, transparently: its stdio, its exit status, its signals.
#include <sys/resource.h>

#include <functional>
#include <string>
#include <vector>

namespace run {

struct Outcome {
  bool started = false;
  int exec_errno = 0;  // why the tool could not be started
  int status = 0;      // wait status
  struct rusage usage {};
  double wall_seconds = 0;
  double start_time = 0;  // seconds since the epoch
  int pid = 0;
};

// fork (vfork) + exec + wait4. Signals for the tool are relayed to it once each, signals the
// tool sends to edashim go to edashim's parent, and a stop of the tool stops edashim
// (run/relay.hpp). If edashim is killed, the tool is killed too (PR_SET_PDEATHSIG). The
// relaying handlers stay installed afterwards and drop what arrives with no tool running.
// `while_running` is called once the tool has started (pid and start time filled in), before
// waiting for it: work done there overlaps the tool's run instead of adding to it.
Outcome launch(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::function<void(const Outcome& so_far)>& while_running = nullptr);

// Remembers main's argument area (argv's strings, which the kernel shows in /proc/PID/cmdline),
// for launch() to rename edashim's own process there.
void keep_argument_area(int argc, char** argv);

// Names edashim's process "edashim" (the kernel's name, and argv[0]'s place in the argument
// area kept above), so that nothing looking for the tool by name finds it.
void take_own_name(const std::vector<std::string>& argv);

// What the argument area of `size` bytes holds once edashim has renamed itself: "edashim" in
// argv[0]'s place (cut to its length, or NUL-padded), the tool's arguments where they were. Pure.
std::string renamed_arguments(const std::vector<std::string>& argv, size_t size);

// Who is watching edashim's own process: a tracer (gdb, strace: TracerPid) or valgrind.
struct Watcher {
  std::string who;                    // "gdb (pid 123)", "valgrind"; empty: nobody
  std::vector<std::string> valgrind;  // valgrind's own command line before its client: launcher, options
};
Watcher watcher();

// Valgrind's command line (from the kernel's, which valgrind hides from its client at
// /proc/self/cmdline but not at /proc/self/task/TID/cmdline): the launcher and its options,
// everything before the first argument that is not an option. Pure.
std::vector<std::string> valgrind_prefix(const std::vector<std::string>& real_cmdline);

// Replaces edashim with the tool as execvp would (run/exec_rules.hpp), environment given or the
// current one when null. Returns only when the exec failed: its errno.
int exec_tool(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>* env);

// exec_tool, and when it fails, the shell's message and status (127, 126).
[[noreturn]] void exec_in_place(const std::string& path, const std::vector<std::string>& argv,
                                const std::vector<std::string>* env);

// Puts back the dispositions edashim started with (SIG_IGN where the caller ignored a signal,
// else SIG_DFL), for an exec in edashim's own place after launch() installed its handlers.
void restore_signal_dispositions();

// Ends edashim the way the tool ended: the same exit code, or death by the same signal.
[[noreturn]] void exit_like(int wait_status);

// The shell's exit status for a wait status (128+N for a signal).
int shell_status(int wait_status);

}  // namespace run
