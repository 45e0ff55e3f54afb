#include "farm/executors.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "runlog/append.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

namespace farm {
namespace {

std::string submissions_path(const std::string& dir) { return dir + "/submissions.jsonl"; }

// /proc/PID/stat's start time (field 22), 0 when there is no such process or it is a zombie.
long long start_time(int pid) {
  auto stat = util::read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return 0;
  auto close = stat->rfind(')');
  if (close == std::string::npos) return 0;
  auto f = util::split(stat->substr(close + 2), ' ');  // f[0] is field 3, the state
  if (f.size() < 20 || f[0] == "Z") return 0;
  return std::atoll(f[19].c_str());
}

void reap_if_ours(int pid) {
  int status;
  ::waitpid(pid, &status, WNOHANG);  // a parallel we started and that ended: not a zombie any more
}

// A subdirectory of DIR for the scheduler's output: made 0700 (or as DIR when shared), and held
// to the one rule when it is already there.
util::Status sub_dir(const std::string& dir, const util::SharedDirs& shared) {
  return make_experiment_dir(dir, shared);
}

// A file of DIR's as text; "" when it is missing or refused (what the scheduler's files do not
// say is a state unknown, never an error of the caller's).
std::string text_or_nothing(const std::string& path, const util::SharedDirs& shared) {
  auto text = farm::read_owned(path, shared, 16 << 20);
  return text ? std::move(*text) : std::string();
}

util::Result<Submission> submit_slurm(const std::string& dir, const Experiment& e, const std::string& edashim,
                                      const std::vector<int>& rounds, const util::SharedDirs& shared) {
  // Always written anew (a rename over whatever is there, never following it): sbatch copies
  // the script at submission, so what runs is what this edashim wrote now.
  if (!util::write_file_atomic(dir + "/task.sh", slurm_task_script(dir, edashim, e.fingerprint), 0700))
    return util::fail("cannot write " + dir + "/task.sh");
  if (auto made = sub_dir(dir + "/slurm", shared); !made) return std::move(made).take_error();
  auto argv = sbatch_argv(dir, rounds, e.executor_args);
  auto c = util::capture(argv);
  std::string job = c.out.substr(0, c.out.find_first_of(";\n"));  // --parsable: "JOBID" or "JOBID;CLUSTER"
  if (c.status != 0 || job.empty()) {
    std::string why = !c.start_error.empty() ? c.start_error : c.err.empty() ? c.out : c.err;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    std::string error = "sbatch failed: " + why + "\n  the command was: " + util::join(argv, " ");
    if (!c.start_error.empty()) error += "\n  is Slurm's client installed here (Debian: slurm-client)?";
    return util::fail(error);
  }
  return Submission{0, "slurm", job, 0, 0, rounds};
}

util::Result<Submission> submit_parallel(const std::string& dir, const Experiment& e, const std::string& edashim,
                                         const std::vector<int>& rounds, int seq, const util::SharedDirs& shared) {
  if (auto made = sub_dir(dir + "/parallel", shared); !made) return std::move(made).take_error();
  std::string n = std::to_string(seq);  // one joblog and output file per submission
  auto argv = parallel_argv(dir, edashim, e.fingerprint, rounds, e.executor_args, dir + "/parallel/joblog-" + n);
  auto pid = util::spawn_detached(argv, dir + "/parallel/output-" + n);
  if (!pid) return util::fail("cannot start GNU parallel: " + pid.error() + " (Debian: apt-get install parallel)");
  return Submission{0, "parallel", std::to_string(*pid), start_time(*pid), 0, rounds};
}

std::map<int, TaskState> slurm_states(const Submission& s, std::string& note) {
  std::map<int, TaskState> out;
  auto c = util::capture({"scontrol", "-o", "show", "job", s.job});
  if (c.status == 0) out = parse_scontrol(c.out, s.job);
  std::vector<int> unknown;
  for (int r : s.rounds)
    if (!out.count(r)) unknown.push_back(r);
  if (unknown.empty()) return out;
  // Slurm forgets ended jobs after MinJobAge (5 minutes by default): accounting remembers them.
  auto a = util::capture({"sacct", "-n", "-P", "-X", "-j", s.job, "-o", "JobID,State,NodeList"});
  if (a.status == 0)
    for (auto& [r, t] : parse_sacct(a.out, s.job)) out.emplace(r, t);
  bool listed = !out.empty();
  for (int r : unknown) {
    if (out.count(r)) continue;
    // A task cancelled while still pending leaves no record in the controller at all.
    out[r] = listed ? TaskState{"GONE", "Slurm lists the job's other tasks but not this one: cancelled before it started", ""}
                    : TaskState{"GONE", "Slurm no longer lists job " + s.job + " and has no accounting of it", ""};
  }
  if (a.status != 0 && !listed) {
    std::string why = a.start_error.empty() ? a.err.substr(0, a.err.find('\n')) : a.start_error;
    note = "Slurm no longer lists job " + s.job + " and sacct cannot say more (" + printable(why) +
           "): states of its ended tasks are unknown";
  }
  return out;
}

std::map<int, TaskState> parallel_states(const std::string& dir, const Submission& s, const util::SharedDirs& shared) {
  std::map<int, TaskState> out;
  int pid = std::atoi(s.job.c_str());
  reap_if_ours(pid);
  bool alive = pid > 0 && s.started != 0 && start_time(pid) == s.started;
  auto ended = parse_joblog(text_or_nothing(dir + "/parallel/joblog-" + std::to_string(s.seq), shared));
  for (int r : s.rounds) {
    struct stat st;
    // parallel says nothing of a job until it ends: a round file written since this submission
    // is its job running.
    bool started = ::stat(round_path(dir, r, false).c_str(), &st) == 0 && double(st.st_mtime) + 1 >= s.time;
    if (auto it = ended.find(r); it != ended.end()) out[r] = it->second;
    else if (alive) out[r] = {started ? "RUNNING" : "PENDING", "", ""};
    else out[r] = {"ENDED", "GNU parallel is not running here (ended, or started on another machine: collect there)", ""};
  }
  return out;
}

}  // namespace

util::Result<Submission> submit(const std::string& dir, const Experiment& e, const std::string& edashim,
                                const std::vector<int>& rounds, const util::SharedDirs& shared) {
  if (auto bad = executor_args_problem(e.executor, e.executor_args); !bad.empty())
    return util::fail(experiment_path(dir) + ": " + bad);
  int seq = int(read_submissions(dir, shared).size()) + 1;
  auto s = e.executor == "slurm" ? submit_slurm(dir, e, edashim, rounds, shared)
                                 : submit_parallel(dir, e, edashim, rounds, seq, shared);
  if (!s) return s;
  s->seq = seq;
  s->time = double(std::time(nullptr));
  nlohmann::json j{{"seq", s->seq},         {"executor", s->executor}, {"job", s->job},
                   {"started", s->started}, {"rounds", s->rounds},     {"time", s->time}};
  if (auto written = runlog::append_line(submissions_path(dir), j.dump()); !written)
    return util::fail("submitted (" + s->executor + " " + s->job + ") but cannot record it in " + submissions_path(dir) + ": " +
                      written.error() + "; collect will not know these tasks");
  return s;
}

std::vector<Submission> read_submissions(const std::string& dir, const util::SharedDirs& shared, int* dropped) {
  std::vector<Submission> out;
  for (const auto& line : util::split(text_or_nothing(submissions_path(dir), shared), '\n')) {
    if (line.empty()) continue;
    if (nesting_exceeds(line, kMaxNesting)) {
      if (dropped) ++*dropped;
      continue;
    }
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    Submission s;
    try {  // a field of another type (a number where text is due) makes the line not ours
      s.seq = j.value("seq", 0);
      s.executor = j.value("executor", "");
      s.job = j.value("job", "");
      s.started = j.value("started", 0LL);
      s.time = j.value("time", 0.0);
      if (j.contains("rounds") && j["rounds"].is_array())
        for (const auto& r : j["rounds"])
          if (r.is_number_integer()) s.rounds.push_back(r.get<int>());
    } catch (const std::exception&) {
      if (dropped) ++*dropped;
      continue;
    }
    if (!valid_job_id(s.executor, s.job)) {
      if (dropped) ++*dropped;
      continue;
    }
    out.push_back(s);
  }
  return out;
}

std::map<int, TaskState> task_states(const std::string& dir, const std::vector<Submission>& subs,
                                     const util::SharedDirs& shared, std::string& note) {
  std::map<int, TaskState> out;
  for (const auto& s : subs) {  // in order: a later submission of a round replaces an earlier one's word
    auto states = s.executor == "slurm" ? slurm_states(s, note) : parallel_states(dir, s, shared);
    for (int r : s.rounds) {
      auto it = states.find(r);
      out[r] = it != states.end() ? it->second : TaskState{"UNKNOWN", "", ""};
    }
  }
  return out;
}

std::string cancel_hint(const std::vector<Submission>& subs) {
  std::vector<std::string> slurm, pids;
  for (const auto& s : subs)
    if (valid_job_id(s.executor, s.job)) (s.executor == "slurm" ? slurm : pids).push_back(s.job);
  std::string out;
  if (!slurm.empty()) out = "scancel " + util::join(slurm, " ");
  if (!pids.empty()) out += (out.empty() ? "" : "; ") + std::string("kill ") + util::join(pids, " ");
  return out;
}

}  // namespace farm
