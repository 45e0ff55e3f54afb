#pragma once
// A run's unfinished line: what edashim knows before it execs the tool in its own place, kept
// in the run's private directory for whoever finishes the run: the tool's own process at its
// normal end (pipeline/finish.hpp), or a later run's sweep when it ended without a word. The
// line's start is written here whole; the rest is what the end must add to it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/run_line.hpp"
#include "run/exit_notice.hpp"
#include "runlog/append.hpp"
#include "util/result.hpp"

namespace pipeline {

// The file's name in the run's private directory.
inline constexpr const char* kUnfinishedFile = "unfinished";
// The record once the probe's finish has written the line itself and left the sweep to
// edashim-finish (probe/finish_here.h): nothing in it is to be written again.
inline constexpr const char* kFinishedFile = "finished";

struct Unfinished {
  long pid = 0;                    // the run's own process (the tool's pid)
  long long start_ns = 0;          // CLOCK_MONOTONIC at edashim's start: the wall time runs from it
  run::OwnUsage own;               // edashim's own use of the process before the exec
  std::string line;                // the line's start (runlog::write_start), an object left open
  std::string log;                 // where the line goes
  // The log as edashim checked it before the exec (util::open_owned), for the probe's finish,
  // which appends only to that file (0: not checked; edashim-finish checks it then).
  unsigned long long log_dev = 0, log_ino = 0;
  runlog::Limits limits;
  std::vector<std::string> shared_dirs;
  std::string scratch;             // the run's scratch ("": none)
  bool keep_scratch = false;
  std::string probe_file;          // the probe's records ("": none)
  VerifyInputs verify;
  std::vector<std::string> sweep_bases;  // where the finishing process sweeps what runs left
};

// Pure: the record as text ("KEY<tab>VALUE" lines, values escaped as util::tsv_escape does),
// and back. A record of another format (another edashim's) is refused, not guessed at. Read
// also by the probe's finish, in C (probe/line_end.c): the two change together.
std::string unfinished_text(const Unfinished& u);
util::Result<Unfinished> parse_unfinished(std::string_view text);

}  // namespace pipeline
