#pragma once
// A bench run by a farm lives in a directory on storage every node shares: what to run
// (experiment.json), the inputs as they were at submission (inputs/, profiles/), each round's
// runs as its task wrote them (rounds/), and what was submitted where (submissions.jsonl).
// Tasks and collect read it; nothing else of the submitting machine is needed on a node but
// edashim at the same path. Layout (DIR/...):
//   experiment.json            the Spec, the command's directory, the edashim that runs it
//   inputs/, profiles/         --fresh-copy inputs and profile files, copied at submission
//   task.sh                    what a Slurm array task runs
//   rounds/r000003.part        round 3 being run: a header line, then a line per run
//   rounds/r000003.jsonl       round 3 complete (the .part renamed when its last run ended)
//   rounds/r000003.attempt-N   an earlier attempt's partial file, kept for inspection
//   submissions.jsonl          one line per submission: executor, job id or pid, rounds
//   slurm/ parallel/           the scheduler's own output per task
#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/spec.hpp"
#include "util/owned_file.hpp"
#include "util/result.hpp"

namespace farm {

inline constexpr int kFormat = 1;

struct Experiment {
  std::string executor;                   // "slurm" or "parallel"
  std::vector<std::string> executor_args; // --slurm-args / --parallel-args, split into words
  std::string edashim;                    // the binary every task runs (same path on every node)
  std::string version;                    // edashim's version that made it
  std::string cwd;                        // where the command runs; relative paths are from here
  bench::Spec spec;                       // arms' profiles point into profiles/ for files
  std::string fingerprint;                // sha256 of all of the above and of the inputs' contents
  bool own = false;  // not in the file: load found DIR and experiment.json the user's own
};

// One run as a round file holds it.
struct RoundRun {
  bench::ArmRun run;
  bool warmup = false;
};

// What a round's file says: who ran it, where, and its runs so far.
struct RoundFile {
  int round = 0;
  bool complete = false;   // the .jsonl, not the .part
  std::string host, cpu, task;  // task: "SLURM job 12_3" / "parallel job 4"
  std::string error;       // the task could not run the round, or was terminated (its own words)
  bool terminated = false; // the error is a SIGTERM (scancel, time limit): the round was cut short
  std::vector<RoundRun> runs;
};

std::string experiment_path(const std::string& dir);
std::string round_path(const std::string& dir, int round, bool complete);

// Creates DIR, or takes it when it is empty and the user's own (util::make_owned_dir: 0700, or
// 0750 inside a shared directory, so the team may read it), with the experiment's files. `spec`
// as the user gave it; profile files and --fresh-copy inputs are copied in.
util::Result<Experiment> create(const std::string& dir, Experiment e, const util::SharedDirs& shared);

// DIR or a directory in it made (or found) under the one rule, as create makes them.
util::Status make_experiment_dir(const std::string& dir, const util::SharedDirs& shared);

// Whether --dir DIR may become an experiment: Ok when it does not exist, or is an empty
// directory that passes the one rule; else one line saying why not and what to do.
util::Status check_new_dir(const std::string& dir, const util::SharedDirs& shared);

// Reads DIR's experiment under the one rule (the directory and experiment.json; shared = the
// user's shared_dirs), checks its fingerprint against its contents and that it was made by this
// edashim's version. `own` is set when DIR and experiment.json are the user's.
util::Result<Experiment> load(const std::string& dir, const std::string& version, const util::SharedDirs& shared);

// Ok when e's fingerprint is that of its fields and of the profile and input files in DIR (read
// under the one rule); else what differs. Profiles and inputs must be DIR's own copies.
util::Status check_fingerprint(const std::string& dir, const Experiment& e, const util::SharedDirs& shared);

// A file of an experiment directory read under the one file rule (util::open_owned), up to
// `limit` bytes; fails with the refusal or I/O error, or with "" when it does not exist.
// `st`: the file's status as opened (its owner, for records).
util::Result<std::string> read_owned(const std::string& path, const util::SharedDirs& shared, std::size_t limit,
                                     struct stat* st = nullptr);

// Serialisation (pure): the fingerprint covers every field but itself.
std::string to_json(const Experiment& e);
util::Result<Experiment> from_json(const std::string& text);
std::string fingerprint(const Experiment& e, const std::string& inputs_digest);

// A round file's lines (pure): the header, and one run.
std::string header_line(int round, const std::string& fingerprint, const std::string& host, const std::string& cpu,
                        const std::string& task);
std::string run_line(const RoundRun& r, const std::string& log_line);
std::string error_line(const std::string& message);
// Reads a round file's text; lines of another experiment (fingerprint) make it an error. Lines
// nested deeper than kMaxNesting or of unexpected types are skipped, never a crash.
RoundFile parse_round(const std::string& text, int round, bool complete, const std::string& fingerprint);

// Every round file in DIR: the complete one where it exists, else the current .part; one the
// rule refuses is a round with that error (resubmittable, never read).
std::vector<RoundFile> read_rounds(const std::string& dir, const Experiment& e, const util::SharedDirs& shared);

}  // namespace farm
