#pragma once
// A benchmark's results as people read them and as programs read them, hyperfine-style: the
// terminal table always, and any number of JSON, Markdown and CSV exports in the same run, each
// written to a temporary file and renamed over its target, so a failure never clobbers a file.
#include <ostream>
#include <string>
#include <vector>

#include "bench/analysis.hpp"
#include "bench/spec.hpp"
#include "util/voice.hpp"

namespace bench {

// Where the renderings go; "-" is stdout (then the terminal table goes to stderr).
struct Exports {
  std::vector<std::string> json, markdown, csv;
  std::string plot;  // SVG of the distributions; "" = none
  bool wide = false;  // the terminal shows every column (the Markdown export always does)
};

// Whether every export can be written, checked before anything runs: its directory exists and
// is writable, it is not a directory, no file is named twice, stdout is named at most once.
// Every problem, one per line; "" when none.
std::string check_exports(const Exports& exports);

// The terminal rendering (or Markdown): a head line, the table, the outputs' verdicts, a legend.
// Not wide (a terminal's default): narrow_table and short footnotes, fitting 100 columns;
// wide (--wide, and always Markdown): every column and the paired table.
std::string render_report(const Spec& spec, const BenchResult& outcome, const std::vector<ArmStats>& arms, bool markdown,
                          bool wide = false);

// Says warnings, failed runs and each export's fate through `voice`, prints the terminal table to
// `out` (to `aside`, stderr, when an export goes to stdout), and writes every export. An
// interrupted benchmark writes no file (what is there stays). False when an export could not be
// written.
bool present(const Spec& spec, const BenchResult& outcome, const std::vector<ArmStats>& arms, const Exports& exports,
             std::ostream& out, std::ostream& aside, const util::Voice& voice);

// A table name for a profile: the name itself, or a profile file's name without .toml.
std::string arm_name(const std::string& profile);

}  // namespace bench
