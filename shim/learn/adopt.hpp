#pragma once
// The adoption rule of `edashim report --recommend` (adopt = true): which verdicts may change
// learned.toml, which runs count for adopting, bench confirmation, and the re-check and drop of
// what was learned. Pure: the command gathers the facts (settings, CPU model, the binary's
// identity, the date), calls these, writes the file and prints what they say.
#include <optional>
#include <string>
#include <vector>

#include "learn/learned.hpp"
#include "learn/recommend.hpp"

namespace learn {

// Whether adopt may act on a verdict here, and what to say when it may not (may be "").
struct AdoptGate {
  bool acts = false;
  std::string said;
};
// Adopt acts on a verdict only with adopt on for the tool and on the CPU model the runs were
// measured on (a learned choice is used on that model only).
AdoptGate adopt_gate(const Verdict& v, bool adopt_on, const std::string& this_cpu);

// The runs of a verdict's tool and CPU model that count for adopting: those started at or after
// the binary's modification time (older ones ran an older binary: an upgrade drops a learned
// choice, and its old runs must not bring it back). Without a binary (gone), all of them.
struct CountedRuns {
  std::vector<Run> runs;   // the tool's runs on the CPU model that count
  std::size_t all = 0;     // the tool's runs on the CPU model
  bool filtered() const { return runs.size() < all; }
};
CountedRuns runs_of_current_binary(const std::vector<Run>& runs, const std::string& tool, const std::string& cpu,
                                   const std::optional<Identity>& binary);

// What adopt knows of one verdict besides the log.
struct AdoptFacts {
  std::optional<Identity> binary;     // the tool's binary now (identity_of(verdict.path)); nullopt: gone
  bool requires_bench = true;         // adopt_requires_bench
  std::string requires_bench_origin;  // where that setting was set, for the message
  std::string learned_file;           // for the message
  std::string date;                   // now, ISO 8601 UTC: the adopted entry's date
};

// What adopt did for one verdict: `entries` changed or not, and the lines to say.
struct AdoptStep {
  bool changed = false;
  std::vector<std::string> said;
};

// Adopts the verdict's recommendation (recomputed over the runs of the current binary when
// older runs are in the log) into `entries`, or re-checks the learned choice for its tool and
// CPU model against the arm it replaced and drops it when the binary changed or the rule no
// longer holds. `runs`: the whole log's runs; `benches`: its bench --compare-outputs records.
AdoptStep adopt_verdict(const Verdict& shown, const AdoptFacts& facts, const std::vector<Run>& runs,
                        const std::vector<BenchRecord>& benches, const Rule& rule, std::vector<Learned>& entries,
                        int resamples = 2000);

}  // namespace learn
