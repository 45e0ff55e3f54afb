#pragma once
// Relaying signals between the caller and the tool while the tool runs, so that each behaves as
// if the other were its direct partner: a signal for the tool reaches it once (real-time ones
// with their value), a signal the tool sends to its parent reaches edashim's parent, and a tool
// that stops stops edashim too.
#include <sys/types.h>

namespace run::relay {

// Where one delivered signal goes.
enum class Route { drop, to_tool, to_parent };

// What is known about one signal delivered to edashim while a tool may be running.
struct Delivery {
  int sig = 0;
  int code = 0;                     // si_code: > 0 from the kernel, <= 0 sent by a process
  bool tool_running = false;
  bool from_self = false;           // sent by edashim itself (a write to a closed pipe)
  bool from_tool_side = false;      // sent by the tool or one of its descendants
  bool shared_group = false;        // the tool is in edashim's process group now (a terminal job)
  bool sender_in_our_group = false; // the sender is in edashim's process group
};

// The routing rule, pure. Faults are not routed: edashim dies of its own (see relay.cpp).
Route route(const Delivery& d);

// Installs the relaying handler for every catchable signal (once per process; they stay), and
// records which ones the caller left ignored (the tool must start with them ignored too).
void install(bool shared_group);
// Whether the caller had left `sig` ignored before install().
bool was_ignored(int sig);
// The signals install() handles (every catchable one but glibc's two), for the child's reset.
const int* handled(int& count);

// The caller's process group, when edashim stepped out of it and left the tool there (0: it
// did not). A stop of the tool then stops edashim back in that group, so that the SIGCONT a
// shell sends to its job's group (fg) wakes edashim as well as the tool.
void set_caller_group(pid_t group);

// The controlling terminal whose foreground the tool's group is (-1: none): once a stopped
// edashim is continued in the foreground (the shell's `fg`), the terminal goes back to the tool.
// `tool_foreground`: the tool's group has it now.
void set_terminal(int fd, bool tool_foreground);

// The tool now running (0: none). Set once it is started, cleared once it has ended.
void set_tool(pid_t tool);

// The tool stopped with `sig`: stop edashim with the same signal so that its parent sees the
// stop, and once edashim is continued, continue the tool.
void follow_stop(pid_t tool, int sig);

// Whether `pid` is `ancestor` or one of its descendants, by the parent chain in /proc.
// Async-signal-safe. False when `pid` is gone.
bool descends_from(pid_t pid, pid_t ancestor);

}  // namespace run::relay
