#pragma once
// What edashim says to a batch scheduler and reads back from it, as pure functions: the
// command lines it runs (sbatch, GNU parallel) and the parsing of what Slurm and parallel
// report about tasks. farm/executors.cpp runs them.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs.hpp"
#include "util/result.hpp"

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

// DIR/task.sh, what each array task runs: `EDASHIM bench round --fingerprint FP DIR N`, every
// word quoted for the shell.
std::string slurm_task_script(const std::string& dir, const std::string& edashim, const std::string& fingerprint);

// GNU parallel for the rounds: one job per round, one job at a time per host unless the user's
// arguments say otherwise (a second job on a host would time its runs against the first's).
// Each job runs `EDASHIM bench round --fingerprint FP DIR N`: the round last (the joblog's key).
std::vector<std::string> parallel_argv(const std::string& dir, const std::string& edashim, const std::string& fingerprint,
                                       const std::vector<int>& rounds, const std::vector<std::string>& user_args,
                                       const std::string& joblog);

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

// A job id as submissions.jsonl records it, checked before it reaches a command or a message:
// Slurm's "12", "12_3" or "12_[3-5,7]"; parallel's pid (digits, not 0). The file is data
// another process wrote: anything else is not a job id.
bool valid_job_id(const std::string& executor, const std::string& job);

// What is wrong with an executor and its arguments (--slurm-args / --parallel-args words), ""
// when nothing: checked at submission and again on every resubmission, where they come from
// experiment.json.
std::string executor_args_problem(const std::string& executor, const std::vector<std::string>& args);

// The edashim a task runs: the one experiment.json names only when it is the running edashim's
// own file (same device and inode: the same program at a path every node shares) or a path in
// `allowed` (the user's configuration); fails naming it otherwise. Never the file's word alone:
// experiment.json is data, and in a shared directory someone else's data.
util::Result<std::string> task_edashim(const std::string& recorded, const std::optional<util::FileId>& recorded_id,
                                       const std::optional<util::FileId>& self_id, const std::string& self_path,
                                       const std::vector<std::string>& allowed);

// True when a JSON text nests arrays and objects deeper than `limit` (strings skipped): such a
// line is refused before parsing, since dumping or walking it recurses once per level.
bool nesting_exceeds(std::string_view json_text, int limit);
inline constexpr int kMaxNesting = 64;

// `text` for a terminal: control characters (ESC, CR, BEL, ...) as \xNN, so that text read from
// an experiment directory cannot move the cursor, hide a line or forge one.
std::string printable(std::string_view text);

// Words of a --slurm-args / --parallel-args string, as a POSIX shell would split them (quotes
// and backslashes; no expansion of anything). Fails on an unclosed quote.
util::Result<std::vector<std::string>> shell_words(const std::string& text);

}  // namespace farm
