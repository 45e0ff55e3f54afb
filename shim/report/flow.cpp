#include "report/flow.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "util/svg_text.hpp"
#include "report/aggregate.hpp"
#include "run/flow_id.hpp"
#include "stats/summary.hpp"

namespace report {

namespace {
// Times no run can have (before 1970, after the year 5000, longer than 30 years, NaN): a line
// another program wrote, passed over, so that the flow's span stays finite (two such lines
// made it infinite: "inf s", every bar squeezed to the left edge, no axis).
bool plausible(const runlog::RunRecord& r) {
  return std::isfinite(r.start_unix) && r.start_unix >= 0 && r.start_unix < 1e11 && std::isfinite(r.wall_s) &&
         r.wall_s < 1e9;
}
}  // namespace

void FlowCollector::add(const runlog::RunRecord& r) {
  if (!r.record.empty() || r.flow != id_ || !plausible(r)) return;
  FlowRun run;
  run.run_id = r.run_id;
  run.parent_run = r.parent_run;
  run.tool = r.tool;
  run.command = command_line(r.argv);
  run.allocator = r.allocator_requested;
  run.start = r.start_unix;
  run.wall = r.wall_s > 0 ? r.wall_s : 0;  // a negative time must not stretch the flow backwards
  run.ok = r.ok();
  run.verified = r.allocator_verified;
  run.max_rss_kb = r.max_rss_kb;
  run.vm_peak_kb = r.vm_peak_kb;
  runs_.push_back(std::move(run));
}

FlowSummary FlowCollector::summary() const {
  FlowSummary f;
  f.flow = id_;
  f.runs = runs_;
  std::stable_sort(f.runs.begin(), f.runs.end(), [](const FlowRun& a, const FlowRun& b) { return a.start < b.start; });
  if (!f.runs.empty()) {
    f.start = f.runs.front().start;
    f.end = f.start;
    for (const auto& r : f.runs) f.end = std::max(f.end, r.start + r.wall);
  }
  f.tools = flow_tool_rows(f.runs, f.wall());
  return f;
}

void LastFlow::add(const runlog::RunRecord& r) {
  if (!r.record.empty() || !run::valid_flow_id(r.flow) || !plausible(r)) return;
  double end = r.start_unix + (r.wall_s > 0 ? r.wall_s : 0);
  if (!any_ || end >= end_) {
    any_ = true;
    end_ = end;
    id_ = r.flow;
  }
}

std::vector<FlowToolRow> flow_tool_rows(const std::vector<FlowRun>& runs, double flow_wall) {
  std::map<std::string, std::vector<const FlowRun*>> by_tool;
  for (const auto& r : runs) by_tool[r.tool].push_back(&r);
  std::vector<FlowToolRow> rows;
  for (const auto& [tool, list] : by_tool) {
    FlowToolRow row;
    row.tool = tool;
    row.runs = list.size();
    std::vector<double> walls;
    std::size_t verified = 0, known = 0;
    for (const FlowRun* r : list) {
      if (!r->ok) ++row.failures;
      walls.push_back(r->wall);
      row.total_wall_s += r->wall;
      if (std::find(row.allocators.begin(), row.allocators.end(), r->allocator) == row.allocators.end())
        row.allocators.push_back(r->allocator);
      if (r->verified) {
        ++known;
        if (*r->verified) ++verified;
      }
      row.peak_rss_kb = std::max(row.peak_rss_kb, r->max_rss_kb);
      if (r->vm_peak_kb && (!row.peak_vm_kb || *r->vm_peak_kb > *row.peak_vm_kb)) row.peak_vm_kb = r->vm_peak_kb;
    }
    row.median_wall_s = stats::median(std::move(walls));
    row.share = flow_wall > 0 ? row.total_wall_s / flow_wall : 0;
    std::sort(row.allocators.begin(), row.allocators.end());
    if (known) row.verified_share = double(verified) / double(known);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const FlowToolRow& a, const FlowToolRow& b) { return a.total_wall_s > b.total_wall_s; });
  return rows;
}

std::string flow_svg_name(const std::string& id) {
  return run::valid_flow_id(id) ? "flow-" + id + ".svg" : "flow.svg";
}

namespace {

std::string num(double v) { return util::svg_coord(v); }

std::string seconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f s" : v >= 1 ? "%.2f s" : "%.3f s", v);
  return buf;
}

// The command in a title: long ones (a yosys -p script) cut, at a character's start.
std::string cut(const std::string& s, std::size_t max = 1000) {
  if (s.size() <= max) return s;
  std::size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "...";
}

// Lanes: tools in order of their first start; within a tool, a run takes the first lane that is
// free when it starts (make -j runs side by side).
struct Lane {
  std::string tool;
  bool first_of_tool = false;
  double free_at = 0;
};

std::vector<std::size_t> assign_lanes(const std::vector<FlowRun>& runs, std::vector<Lane>& lanes) {
  std::vector<std::string> order;
  for (const auto& r : runs)
    if (std::find(order.begin(), order.end(), r.tool) == order.end()) order.push_back(r.tool);
  std::vector<std::size_t> lane_of(runs.size());
  for (const auto& tool : order) {
    std::size_t first = lanes.size();
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].tool != tool) continue;
      std::size_t l = first;
      while (l < lanes.size() && lanes[l].free_at > runs[i].start) ++l;
      if (l == lanes.size()) lanes.push_back({tool, l == first, 0});
      lanes[l].free_at = runs[i].start + runs[i].wall;
      lane_of[i] = l;
    }
  }
  return lane_of;
}

}  // namespace

std::string flow_svg(const FlowSummary& f) {
  using util::xml_text;
  std::vector<Lane> lanes;
  auto lane_of = assign_lanes(f.runs, lanes);
  std::vector<std::string> allocators;
  for (const auto& r : f.runs)
    if (std::find(allocators.begin(), allocators.end(), r.allocator) == allocators.end()) allocators.push_back(r.allocator);
  std::sort(allocators.begin(), allocators.end());
  auto color = [&](const std::string& a) {
    return util::kPalette[std::size_t(std::find(allocators.begin(), allocators.end(), a) - allocators.begin()) % util::kPaletteSize];
  };
  const double left = 180, right = 960, width = 1000, lane_h = 20, top = 78;
  const double span = f.wall() > 0 ? f.wall() : 1;
  auto x_of = [&](double t) { return left + (t - f.start) / span * (right - left); };
  double bottom = top + lane_h * double(lanes.size());
  std::string s;
  s += "<svg xmlns='http://www.w3.org/2000/svg' width='" + num(width) + "' height='" + num(bottom + 44) +
       "' font-family='sans-serif' font-size='12'>\n";
  s += "<style>.h{font-size:15px;font-weight:bold}.tick{text-anchor:middle;fill:#555}.lane{text-anchor:end}"
       ".grid{stroke:#ddd}.axis{stroke:#555}</style>\n";
  s += "<rect width='100%' height='100%' fill='white'/>\n";
  s += "<text x='10' y='22' class='h'>edashim flow " + util::xml_text(f.flow) + ": " + std::to_string(f.runs.size()) +
       (f.runs.size() == 1 ? " run, " : " runs, ") + seconds(f.wall()) + "</text>\n";
  double lx = 10;  // legend: one swatch per allocator
  for (const auto& a : allocators) {
    s += "<rect x='" + num(lx) + "' y='36' width='12' height='12' fill='" + color(a) + "'/>";
    std::string label = util::xml_text(a.empty() ? "(none)" : a);
    s += "<text x='" + num(lx + 16) + "' y='46'>" + label + "</text>\n";
    lx += 30 + 7.0 * double(std::min<std::size_t>(label.size(), 40));
  }
  for (double t : util::nice_ticks(0, span)) {
    if (t < 0 || t > span) continue;
    double x = x_of(f.start + t);
    s += "<line x1='" + num(x) + "' y1='" + num(top) + "' x2='" + num(x) + "' y2='" + num(bottom) + "' class='grid'/>";
    s += "<text x='" + num(x) + "' y='" + num(bottom + 16) + "' class='tick'>" + seconds(t) + "</text>\n";
  }
  s += "<line x1='" + num(left) + "' y1='" + num(bottom) + "' x2='" + num(right) + "' y2='" + num(bottom) + "' class='axis'/>\n";
  for (std::size_t l = 0; l < lanes.size(); ++l)
    if (lanes[l].first_of_tool)
      s += "<text x='" + num(left - 8) + "' y='" + num(top + lane_h * double(l) + 14) + "' class='lane'>" +
           util::xml_text(cut(lanes[l].tool, 40)) + "</text>\n";
  for (std::size_t i = 0; i < f.runs.size(); ++i) {
    const auto& r = f.runs[i];
    double x = x_of(r.start), w = std::max(1.0, x_of(r.start + r.wall) - x);
    std::string verified = !r.verified ? "not said" : *r.verified ? "verified" : "not verified";
    // Each part escaped on its own: the line break between them is the title's, not the log's.
    std::string title = util::xml_text(r.tool + ": " + (r.allocator.empty() ? "(none)" : r.allocator) + " (" + verified +
                                 "), " + seconds(r.wall) + (r.ok ? "" : ", failed")) +
                        "&#10;" + util::xml_text(cut(r.command));
    s += "<rect x='" + num(x) + "' y='" + num(top + lane_h * double(lane_of[i]) + 3) + "' width='" + num(w) +
         "' height='" + num(lane_h - 6) + "' fill='" + color(r.allocator) + "'" +
         (r.ok ? "" : " stroke='#c00' stroke-width='1.5'") + "><title>" + title + "</title></rect>\n";
  }
  s += "<text x='" + num(left) + "' y='" + num(bottom + 36) +
       "' fill='#555'>seconds from the flow's first start; a bar per run, coloured by allocator; failed runs outlined "
       "red</text>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace report
