#include "report/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <tuple>

#include "util/strings.hpp"

namespace report {

bool Filter::accepts(const runlog::RunRecord& r) const {
  if (!tools.empty() && std::find(tools.begin(), tools.end(), r.tool) == tools.end()) return false;
  if (since && r.start_unix < *since) return false;
  if (until && r.start_unix >= *until) return false;
  if (!cwd.empty()) {
    std::string dir = cwd;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (r.cwd != dir && !(r.cwd.size() > dir.size() && r.cwd.compare(0, dir.size(), dir) == 0 &&
                          (dir == "/" || r.cwd[dir.size()] == '/')))
      return false;
  }
  return true;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += util::shell_quote(a);
  }
  return out;
}

namespace {
constexpr std::pair<GroupBy, const char*> kGroupNames[] = {
    {GroupBy::none, "none"}, {GroupBy::cwd, "cwd"}, {GroupBy::command, "command"}, {GroupBy::host, "host"}, {GroupBy::cpu, "cpu"}};
}

std::optional<GroupBy> group_by_named(std::string_view name) {
  for (auto [by, text] : kGroupNames)
    if (name == text) return by;
  return std::nullopt;
}

const char* group_by_name(GroupBy by) {
  for (auto [b, text] : kGroupNames)
    if (b == by) return text;
  return "";
}

bool is_reference(const runlog::RunRecord& r) { return r.profile == kBaselineProfile || r.arm == "system"; }

void Aggregator::add(const runlog::RunRecord& r) {
  std::string cmd = command_line(r.argv);
  std::string by;
  switch (by_) {
    case GroupBy::none: break;
    case GroupBy::cwd: by = r.cwd; break;
    case GroupBy::command: by = cmd; break;
    case GroupBy::host: by = r.host; break;
    case GroupBy::cpu: by = r.cpu; break;
  }
  if (is_reference(r) && r.ok()) reference_[{r.tool, by}][cmd].push_back(r.wall_s);
  Cell& c = groups_[Key{r.tool, r.profile, r.arm, std::move(by)}][cmd];
  ++c.runs;
  if (r.allocator_verified) {
    ++c.verified_known;
    if (*r.allocator_verified) ++c.verified;
  }
  if (r.signal) {
    ++c.killed;
    return;
  }
  if (!r.ok()) {
    ++c.failures;
    return;
  }
  c.wall.push_back(r.wall_s);
  if (!r.figures_unknown) c.rss.push_back(r.max_rss_kb);
  if (r.vm_peak_kb) c.vm_peak.push_back(*r.vm_peak_kb);
  if (!r.probed) ++c.unprobed;
}

std::vector<GroupRow> Aggregator::rows() const {
  std::vector<GroupRow> out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [key, commands] : groups_) {
    const auto& [tool, profile, arm, by] = key;
    GroupRow row;
    row.tool = tool;
    row.profile = profile;
    row.arm = arm;
    row.by = by;
    std::vector<double> wall, rss, vm_peak;
    std::size_t verified = 0, known = 0;
    for (const auto& [cmd, c] : commands) {
      row.runs += c.runs;
      row.failures += c.failures;
      row.killed += c.killed;
      verified += c.verified;
      known += c.verified_known;
      wall.insert(wall.end(), c.wall.begin(), c.wall.end());
      rss.insert(rss.end(), c.rss.begin(), c.rss.end());
      vm_peak.insert(vm_peak.end(), c.vm_peak.begin(), c.vm_peak.end());
      row.unprobed_runs += c.unprobed;
    }
    row.wall = stats::summarize(std::move(wall));
    row.median_rss_kb = rss.empty() ? nan : stats::median(std::move(rss));
    if (!vm_peak.empty()) row.median_vm_peak_kb = stats::median(std::move(vm_peak));
    if (known) row.verified_share = double(verified) / double(known);
    runlog::RunRecord probe;
    probe.profile = profile;
    probe.arm = arm;
    if (is_reference(probe)) {
      row.time_ratio = 1.0;
    } else {
      // Compare command by command, so that a profile tried on a small design is not credited
      // with a gain against baseline runs of a large one.
      auto base = reference_.find({tool, by});
      double log_sum = 0;
      std::size_t n = 0;
      if (base != reference_.end()) {
        for (const auto& [cmd, c] : commands) {
          auto b = base->second.find(cmd);
          if (c.wall.empty() || b == base->second.end() || b->second.empty()) continue;
          log_sum += std::log(stats::median(c.wall) / stats::median(b->second));
          ++n;
        }
      }
      if (n) {
        row.time_ratio = std::exp(log_sum / double(n));
        row.ratio_commands = n;
      }
    }
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end(), [](const GroupRow& a, const GroupRow& b) {
    auto rank = [](const GroupRow& r) { return r.profile == kBaselineProfile ? 0 : r.arm == "system" ? 1 : 2; };
    return std::tuple(a.tool, a.by, rank(a), a.profile, a.arm) < std::tuple(b.tool, b.by, rank(b), b.profile, b.arm);
  });
  return out;
}

std::string vm_peak_note(const std::vector<GroupRow>& rows) {
  std::size_t missing = 0, unprobed = 0;
  for (const auto& r : rows) {
    if (r.median_vm_peak_kb || r.wall.n == 0) continue;
    ++missing;
    unprobed += r.unprobed_runs;
  }
  if (!missing) return "";
  std::string why = unprobed ? "the probe was off for " + std::to_string(unprobed) +
                                   " of their runs (probe = false in a profile, libedashim_probe.so not installed, or "
                                   "a sanitizer runtime that must load first)"
                             : "the probe ran but no process reported VmPeak (each ended by _exit, exec or a signal)";
  return "peak virtual size is \"-\" in " + std::to_string(missing) + (missing == 1 ? " row" : " rows") +
         ": it needs the probe's records (VmPeak per process), and " + why;
}

std::optional<double> parse_time(const std::string& text, double now) {
  if (text.empty()) return std::nullopt;
  char unit = text.back();
  if (unit == 'm' || unit == 'h' || unit == 'd' || unit == 's') {
    std::string num = text.substr(0, text.size() - 1);
    char* endp = nullptr;
    double v = std::strtod(num.c_str(), &endp);
    if (!num.empty() && endp && *endp == 0 && v >= 0) {
      double mult = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 86400;
      return now - v * mult;
    }
  }
  struct tm tm {};
  const char* formats[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d"};
  for (const char* f : formats) {
    tm = {};
    const char* end = strptime(text.c_str(), f, &tm);
    if (end && (*end == 0 || (*end == 'Z' && end[1] == 0))) return double(timegm(&tm));
  }
  return std::nullopt;
}

}  // namespace report
