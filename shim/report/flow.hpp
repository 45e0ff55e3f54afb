#pragma once
// `edashim report --flow`: the runs of one flow, per tool and as a timeline.
// Pure: records in, rows and SVG text out, so the arithmetic and the escaping are unit-tested.
#include <optional>
#include <string>
#include <vector>

#include "runlog/read.hpp"

namespace report {

// One run of the flow, as much of it as the view needs.
struct FlowRun {
  std::string run_id, parent_run, tool, command, allocator;  // command: argv shell-quoted
  double start = 0, wall = 0;
  bool ok = false;                   // exit status 0
  std::optional<bool> verified;      // allocator_verified; absent when the line does not say
  double max_rss_kb = 0;
  std::optional<double> vm_peak_kb;
};

// Per tool: where the flow's time went. Every run counts in the times, failed ones too: a
// failed run took its time all the same.
struct FlowToolRow {
  std::string tool;
  std::size_t runs = 0, failures = 0;
  double total_wall_s = 0, median_wall_s = 0;
  // total_wall_s over the flow's wall time (first start to last end). Runs nest (make's run
  // holds yosys') and overlap (make -j), so the shares need not add up to 1.
  double share = 0;
  std::vector<std::string> allocators;  // requested, each once, sorted
  std::optional<double> verified_share; // over the runs whose line says
  double peak_rss_kb = 0;               // the largest over the tool's runs
  std::optional<double> peak_vm_kb;     // likewise, over the runs the probe measured
};

struct FlowSummary {
  std::string flow;
  double start = 0, end = 0;           // first start, last end (unix seconds)
  double wall() const { return end - start; }
  std::vector<FlowRun> runs;           // by start time
  std::vector<FlowToolRow> tools;      // most total time first
};

// Collects the runs of flow `id` from a stream of records (other flows', and records that are
// not runs, pass by).
class FlowCollector {
 public:
  explicit FlowCollector(std::string id) : id_(std::move(id)) {}
  void add(const runlog::RunRecord& r);
  FlowSummary summary() const;
 private:
  std::string id_;
  std::vector<FlowRun> runs_;
};

// The flow of the run that ended last (start + wall; the later line on a tie), over the runs
// whose flow id is valid (run/flow_id.hpp): what `--flow last` shows.
class LastFlow {
 public:
  void add(const runlog::RunRecord& r);
  const std::string& id() const { return id_; }
 private:
  std::string id_;
  double end_ = 0;
  bool any_ = false;
};

// The per-tool rows of `runs` over a flow that lasted `flow_wall` seconds.
std::vector<FlowToolRow> flow_tool_rows(const std::vector<FlowRun>& runs, double flow_wall);

// A standalone SVG timeline: a lane per tool (more when its runs overlap), a bar per run from
// its start to its end, coloured by allocator, the tool and its command in the bar's <title>.
// Everything from the log goes through util::xml_text.
std::string flow_svg(const FlowSummary& f);

// The default name of the timeline's file: flow-ID.svg (IDs are checked, so no '/').
std::string flow_svg_name(const std::string& id);

}  // namespace report
