#pragma once
// What a bench with --compare-outputs leaves in the run log for adopt: one
// "bench_outputs" record naming the allocators whose runs gave the reference arm's outputs.
// `adopt_requires_bench` reads it (learn/recommend.hpp: bench_confirms).
#include <string>
#include <vector>

#include "bench/analysis.hpp"

namespace bench {

struct OutputsByAllocator {
  std::vector<std::string> identical, differing;  // allocator names (allocator.requested of the arm's runs)
};

// The first arm is the reference: it is "identical" when each of its outputs had one content in
// every run; another arm is when each output also equals the reference's. An arm whose outputs
// varied, went missing or differed is "differing"; an arm without a successful run is neither.
// An allocator that two arms ran is identical only if both were.
OutputsByAllocator outputs_by_allocator(const BenchResult& outcome, const std::vector<ArmStats>& arms);

// The record as one log line (JSON, no newline).
std::string outputs_record_line(const std::string& tool, const std::string& path, const std::string& cpu, double start_unix,
                                const OutputsByAllocator& by);

// A bench run's log line as bench keeps it in a run log: the inner run's own
// line plus "bench": {"experiment", "arm", "round"}. An arm that names a profile (-p) was not the
// tool's current choice, so its "explore" is set to {"ran": PROFILE, "instead_of": null, "by":
// "bench"} as an explored run's is, and report --recommend never takes it for the choice in use;
// the current-choice arm (no -p) keeps its null. A line that is not a JSON object is returned as
// it is.
std::string mark_bench_line(const std::string& line, const std::string& experiment, const Arm& arm, int round);

}  // namespace bench
