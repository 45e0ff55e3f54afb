#pragma once
// What edashim says to a batch scheduler and reads back from it, as pure functions: the
// command lines it runs (sbatch, GNU parallel) and the parsing of what Slurm and parallel
// report about tasks. farm/executors.cpp runs them.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace farm {

// "0-4,7,9-10" from {0,1,2,3,4,7,9,10} (sorted, unique); Slurm's --array syntax.
std::string index_ranges(std::vector<int> rounds);
// The reverse, as scontrol prints array task ids ("2-9%2", "3,5,7-9", "4"); empty on garbage.
std::vector<int> parse_index_ranges(const std::string& text);

// Options of --slurm-args that edashim sets itself, and why: nullopt when none is given.
std::optional<std::string> reserved_slurm_option(const std::vector<std::string>& args);

// sbatch for the rounds: one array task per round, each running DIR/task.sh.
std::vector<std::string> sbatch_argv(const std::string& dir, const std::vector<int>& rounds,
                                     const std::vector<std::string>& user_args);

// GNU parallel for the rounds: one job per round, one job at a time per host unless the user's
// arguments say otherwise (a second job on a host would time its runs against the first's).
std::vector<std::string> parallel_argv(const std::string& dir, const std::string& edashim, const std::vector<int>& rounds,
                                       const std::vector<std::string>& user_args, const std::string& joblog);

// A task as the scheduler reports it.
struct TaskState {
  std::string state;   // Slurm's JobState (PENDING, RUNNING, COMPLETED, CANCELLED, TIMEOUT...) or
                       // for parallel: "RUNNING" / "PENDING" / "EXITED 1" / "SIGNAL 15"
  std::string reason;  // Slurm's Reason (Resources, NonZeroExitCode...), "" when None
  std::string node;
  bool active() const;  // still queued or running: not yet a result either way
};

// `scontrol -o show job JOBID`: one line per task, including unsplit pending ranges.
std::map<int, TaskState> parse_scontrol(const std::string& text, const std::string& job);
// `sacct -n -P -X -j JOBID -o JobID,State,NodeList`: "12_3|CANCELLED by 0|node1".
std::map<int, TaskState> parse_sacct(const std::string& text, const std::string& job);
// GNU parallel's --joblog: ended jobs, keyed by the round (the command's last word).
std::map<int, TaskState> parse_joblog(const std::string& text);

// Words of a --slurm-args / --parallel-args string, as a POSIX shell would split them (quotes
// and backslashes; no expansion of anything). nullopt with `error` for an unclosed quote.
std::optional<std::vector<std::string>> shell_words(const std::string& text, std::string& error);

}  // namespace farm
