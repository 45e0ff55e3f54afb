#pragma once
// What one farm task does: round ROUND of the experiment in DIR, on whatever node the scheduler
// gave it. Its warm-up runs, then every arm once in the round's shuffled order, each a real
// `edashim run --strict -p ARM` through bench's Session (the same runs a local bench makes);
// each run is appended to the round's .part file as it ends, and the file is renamed .jsonl
// after the last one, so a complete round is one rename and anything else is partial.
#include <string>

#include "bench/spec.hpp"
#include "util/owned_file.hpp"
#include "util/voice.hpp"

namespace farm {

// `edashim bench round --fingerprint FP DIR ROUND`: the exit status for the task (0: the round is
// complete, whether or not the tool's runs succeeded: a failed run is a result, listed by
// collect). DIR and every file read in it are held to the one rule (`shared`: the user's
// shared_dirs), and experiment.json must still be the experiment submitted: its fingerprint that
// of its contents and equal to `fingerprint` (what the submission put on the task's command
// line, out of reach of whoever can write DIR). An empty `fingerprint` skips only that last test.
int run_round(const std::string& dir, int round, const std::string& fingerprint, const util::SharedDirs& shared,
              const bench::Previewer& preview, const util::Voice& voice);

// The task's own name for the record: "slurm 12_3", "parallel 4", or "" outside a scheduler.
std::string task_name();

}  // namespace farm
