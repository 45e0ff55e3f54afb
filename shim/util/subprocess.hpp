#pragma once
// Running a helper program (sbatch, scontrol, parallel) and reading what it printed. Not for
// the user's tool: that runs through run/launch, with every rule of transparency. These are
// edashim's own short-lived calls, started by argv (never through a shell), with stdin from
// /dev/null and every descriptor of ours close-on-exec.
#include <sys/types.h>

#include <string>
#include <vector>

#include "util/result.hpp"

namespace util {

struct Captured {
  int status = -1;         // exit status; 128 + signal when killed; -1 when it could not start
  std::string out, err;    // what it printed (each cut at 1 MiB)
  std::string start_error; // why it could not start ("sbatch: No such file or directory")
};

// Runs argv[0] (looked up on PATH) with argv and this process's environment plus `extra_env`.
Captured capture(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});

// Starts argv detached from us (its own session, stdio to `log`, or /dev/null), not waited
// for: a task launcher that outlives `edashim bench`. Its pid, or why it could not start.
Result<pid_t> spawn_detached(const std::vector<std::string>& argv, const std::string& log);

}  // namespace util
