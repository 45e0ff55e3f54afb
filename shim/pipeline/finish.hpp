#pragma once
// The end of a run whose tool ran in edashim's place. At the tool's normal end its own process
// (the probe library, probe/probe.c) execs edashim, which finishes the run here, in that same
// process: the line from the unfinished record and the figures the process handed over, the
// scratch removed, the run's private directory removed, then the tool's exit status. A run that
// ended without a word (a signal, a crash) leaves its record; a later run's sweep completes it.
#include <cstddef>
#include <string>
#include <vector>

namespace pipeline {

// How many directories a run's own sweep removes at most: a run leaves two at most (its scratch
// and its private directory), so each sweep keeps ahead; a thousand left by a loop once cost
// one run's end 20 s.
inline constexpr size_t kSweepBudget = 8;

// The finishing edashim's work (main.cpp, when started as run::kFinishName): `dir` the run's
// private directory, `exit_code` the tool's, `notice` its figures (run::parse_exit_notice).
// Ends the process with `exit_code`, whatever fails.
[[noreturn]] void finish_run(const std::string& dir, int exit_code, const char* notice);

// A sweep's word on a run's private directory it is about to remove (it holds its lock: nobody
// is left in the run): its line, said to have ended without a word, if it left one.
void complete_unfinished(const std::string& dir);

// Sweeps the user's own bases of what runs left: scratch and private directories nobody holds,
// completing the lines of runs that ended without a word; at most `budget` of them, since a run
// sweeps at its end, on its caller's time. `edashim report` sweeps them all, so that such runs
// are counted at once.
void sweep_runs_left(const std::vector<std::string>& bases, size_t budget = kSweepBudget);

// The user's own bases a run's directories may be in, for a sweep with no plan at hand (report):
// the scratch bases and the private directories' ($XDG_RUNTIME_DIR, /tmp).
std::vector<std::string> default_sweep_bases();

// The notice of a line that could not be written (pipeline/notices.hpp): said once a session for
// each reason (a read-only HOME's log is said once, not on every run).
std::string log_not_written(const std::string& why);

}  // namespace pipeline
