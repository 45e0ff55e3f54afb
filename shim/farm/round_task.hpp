#pragma once
// What one farm task does: round ROUND of the experiment in DIR, on whatever node the scheduler
// gave it. Its warm-up runs, then every arm once in the round's shuffled order, each a real
// `edashim run --strict -p ARM` through bench's Session (the same runs a local bench makes);
// each run is appended to the round's .part file as it ends, and the file is renamed .jsonl
// after the last one, so a complete round is one rename and anything else is partial.
#include <iosfwd>
#include <string>

#include "bench/spec.hpp"

namespace farm {

// `edashim bench round DIR ROUND`: the exit status for the task (0: the round is complete,
// whether or not the tool's runs succeeded: a failed run is a result, listed by collect).
int run_round(const std::string& dir, int round, const bench::Previewer& preview, std::ostream& err);

// The task's own name for the record: "slurm 12_3", "parallel 4", or "" outside a scheduler.
std::string task_name();

}  // namespace farm
