#pragma once
// What a benchmark decides, said the way hyperfine closes ("jemalloc ran 1.11 ± 0.02 times
// faster than baseline"), one line per arm against the first, and one line that says what to
// do with it; plus the checks that make a benchmark's figures untrustworthy (a compared output
// no run left, an arm with no successful run, a busy machine). Pure: unit-tested without runs.
#include <optional>
#include <string>
#include <vector>

#include "bench/analysis.hpp"
#include "bench/paired.hpp"
#include "bench/spec.hpp"

namespace bench {

// An arm's comparison with the first arm.
struct ArmVerdict {
  std::string name;
  double speedup = 0, speedup_sd = 0;  // first arm's mean / this arm's mean, with hyperfine's error propagation
  bool clearly_faster = false;         // the ratio's 95% CI lies below 1, and no run failed
  bool paired = false;                 // the ratio and CI are the paired ones (kVerdictMinPairs rounds or more)
  double ratio = 1;                    // the judged ratio (Judged::ratio): below 1 is faster
  std::optional<stats::Interval> ci;   // its 95% CI
  double p = 0;                        // the p-value beside it (judged_p); NaN when there is none
  std::string line;                    // "jemalloc ran 1.11 ± 0.02 times faster than baseline (...)"
};

struct Verdict {
  std::vector<ArmVerdict> arms;  // every arm but the first
  std::optional<std::size_t> winner;  // index into Spec::arms of the clearly fastest arm, if any
  std::string advice;                 // what to do, one or a few lines
  std::string adopt_toml;             // the settings that make the winner stick ("" when none)
  bool offer_toml = false;            // the advice ends by offering adopt_toml's lines to paste
};

// The winner's TOML comes from its ArmStats::arm_id. `tool`: the command's tool name. With
// `paired` and at least kVerdictMinPairs rounds for an arm, that arm is judged on its paired
// ratio and its CI over rounds (what slowed the machine in a round slowed both sides, and the
// p-value shown beside it is the paired test's); otherwise on the unpaired median ratio's CI.
Verdict decide(const Spec& spec, const std::vector<ArmStats>& arms, const std::string& tool,
               const Paired* paired = nullptr);

// Fewer rounds than this and an arm is judged unpaired: a bootstrap over 3 or 4 rounds says
// little, and the signed-rank test cannot reach p < 0.05 below 5.
inline constexpr std::size_t kVerdictMinPairs = 5;

// The ratio arm `a` is judged on, and its interval: the paired median over rounds and its CI
// over rounds with kVerdictMinPairs pairs or more (and `paired` given), else the median ratio
// of the arm's runs and its bootstrap CI. The verdict and the terminal table show this one.
struct Judged {
  double ratio = 1;
  std::optional<stats::Interval> ci;
  std::size_t pairs = 0;  // 0: unpaired
};
Judged judged(const std::vector<ArmStats>& arms, std::size_t a, const Paired* paired);

// The "Summary" block of the report: the lines and the advice, the TOML offered as lines to paste
// (in a code block for Markdown, whose prose is not wrapped).
std::string render_verdict(const Verdict& v, bool markdown = false);

// Compared output files that no successful run of any arm left: a misspelt name, or a file the
// command writes elsewhere. Bench fails on them (a missing file is not "identical").
std::vector<std::string> missing_everywhere(const Spec& spec, const std::vector<ArmStats>& arms);

// Arms with runs but not one successful run.
std::vector<std::string> arms_without_success(const std::vector<ArmStats>& arms);

// What the machine's state says about the figures: `load_before`/`load_after` are the 1-minute
// load averages around the runs (NaN when unknown), `cpus` the logical CPUs, `jobs` bench's own
// concurrency. Warns when others kept the CPUs busy, or when an arm's runs spent well under
// half their wall time on a CPU (user + sys / wall): the tool waited, for I/O or for a CPU.
std::vector<std::string> noise_warnings(const std::vector<ArmStats>& arms, double load_before, double load_after,
                                        int cpus, int jobs);

// Every warning a bench's figures carry, in the order said: the run's own (o.warnings), then the
// noise warnings. stderr and the JSON export say the same list.
std::vector<std::string> all_warnings(const Spec& spec, const BenchResult& o, const std::vector<ArmStats>& arms);

// `text`'s words wrapped at `width` columns, each line after the first indented by `indent`
// spaces (prose for an 100-column terminal: footnotes, tune's header and summary).
std::string wrap(const std::string& text, std::size_t width, std::size_t indent = 0);

// Thresholds of noise_warnings.
inline constexpr double kMinCpuShare = 0.5;   // user+sys / wall below this: the runs waited
inline constexpr double kMinWallForShare = 0.2;  // seconds: shorter runs are left out of that check

}  // namespace bench
