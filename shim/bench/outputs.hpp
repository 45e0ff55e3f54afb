#pragma once
// --compare-outputs: what each run left behind, hashed, and a verdict per output per arm. Pure
// apart from hash_output(), which reads the file.
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "bench/spec.hpp"

namespace bench {

// The hash recorded for an output that a run did not leave.
inline constexpr const char* kMissing = "missing";

// `text` without the lines `filter` finds a match in (a line keeps its newline or loses it
// with the line), so that a tool's own timings do not make stdout vary.
std::string filter_lines(std::string_view text, const std::regex& filter);

// sha256 of a file, after filter_lines when `filter` is given; kMissing when unreadable.
std::string hash_output(const std::string& path, const std::regex* filter);

// The outputs hashed after every run, in a fixed order: "stdout" first when hashed, then the files.
std::vector<std::string> output_names(const Spec& spec);

// One output of one arm, over the arm's successful runs.
struct OutputVerdict {
  enum Kind { identical, varies, missing } kind = missing;  // missing: absent from every run
  std::size_t distinct = 0;       // distinct contents seen (kMissing counts as one)
  std::size_t missing_runs = 0;   // runs that did not leave it
  // Against the first arm, when both arms have one content each (unset for the first arm).
  std::optional<bool> same_as_first;
};

// "identical", "varies", "missing".
const char* kind_name(OutputVerdict::Kind k);

// Per output name, the verdict for arm `arm`; `first` is arm 0's result (empty for arm 0).
std::map<std::string, OutputVerdict> output_verdicts(const BenchResult& outcome, int arm,
                                                     const std::map<std::string, std::string>* first_single);

// Per output name, the one content arm `arm` produced, for outputs that did not vary.
std::map<std::string, std::string> single_contents(const BenchResult& outcome, int arm);

// One phrase per arm for the summary column: "reference", "identical", "differs: net.v",
// "varies between runs: stdout", "missing: net.v" (joined with "; ").
std::string outputs_summary(const std::map<std::string, OutputVerdict>& verdicts, bool first_arm);

// One table cell: "identical", "identical, = first", "identical, differs from first",
// "varies (3 contents)", "missing", "missing in 2 runs".
std::string verdict_cell(const OutputVerdict& v);

}  // namespace bench
