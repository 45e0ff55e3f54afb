#pragma once
// Grouping run records into the rows of `edashim report`: pure, so the arithmetic is tested on
// a synthetic log without running anything.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runlog/read.hpp"
#include "stats/summary.hpp"

namespace report {

// What, besides tool and profile, separates rows: the working directory, the whole command, the
// machine's name (the record's "host") or its CPU model (machine.cpu), for a farm's logs.
enum class GroupBy { none, cwd, command, host, cpu };

// "none", "cwd", "command", "host", "cpu"; nullopt for anything else.
std::optional<GroupBy> group_by_named(std::string_view name);
const char* group_by_name(GroupBy by);

// Which runs count; empty fields filter nothing.
struct Filter {
  std::vector<std::string> tools;
  std::optional<double> since, until;  // start_unix bounds, inclusive since, exclusive until
  std::string cwd;                     // runs in this directory or below it
  bool accepts(const runlog::RunRecord& r) const;
};

// The profile other rows are compared with.
inline constexpr const char* kBaselineProfile = "baseline";

// Whether a run is of the reference other rows are compared with: the baseline profile, or the
// system allocator (glibc's malloc) run any way, as a plain run or explored.
bool is_reference(const runlog::RunRecord& r);

struct GroupRow {
  std::string tool, profile, by;       // profile "" = none; by: the cwd, command, host or CPU, per
                                       // GroupBy ("" for a host or CPU the record does not name)
  std::string arm;                     // the allocator and options the runs ran ("jemalloc",
                                       // "system"); "" in logs older than the field
  std::size_t runs = 0, failures = 0;  // failures: the tool exited nonzero (excluded from figures)
  std::size_t killed = 0;              // ended by a signal (Ctrl-C, a timeout, the OOM killer): not
                                       // the tool's failure, and excluded from figures too
  stats::Summary wall;                 // successful runs only
  double median_rss_kb = 0;            // NaN when no run succeeded
  // The median peak virtual size over the successful runs whose probe reported one; nullopt
  // when none did (the probe was off), with the runs that had no probe counted.
  std::optional<double> median_vm_peak_kb;
  std::size_t unprobed_runs = 0;       // successful runs without the probe's records
  std::optional<double> verified_share;  // over the runs whose log says; nullopt when none does
  // This row's median wall time / the reference's: the geometric mean over the commands run under
  // both this row and the reference (is_reference: same tool, same argv, and same cwd or command
  // when grouped by it). Below 1 is faster, as every ratio edashim shows.
  std::optional<double> time_ratio;
  std::size_t ratio_commands = 0;
};

// Streams records in, rows out. Memory grows with the number of distinct commands and
// successful runs (two doubles each), not with line length.
class Aggregator {
 public:
  explicit Aggregator(GroupBy by) : by_(by) {}
  void add(const runlog::RunRecord& r);
  std::vector<GroupRow> rows() const;  // sorted by tool, then by, then baseline first, then profile
 private:
  struct Cell {
    std::vector<double> wall, rss, vm_peak;
    std::size_t unprobed = 0;
    std::size_t runs = 0, failures = 0, killed = 0, verified = 0, verified_known = 0;
  };
  using Key = std::tuple<std::string, std::string, std::string, std::string>;  // tool, profile, arm, by
  GroupBy by_;
  std::map<Key, std::map<std::string, Cell>> groups_;  // -> command (argv joined) -> cell
  // The reference's successful walls: (tool, by) -> command -> walls.
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<double>>> reference_;
};

// Why some rows show no peak virtual size ("-"), said once: "" when every row has one.
std::string vm_peak_note(const std::vector<GroupRow>& rows);

// The argv as one string, arguments separated by spaces and shell-quoted where needed.
std::string command_line(const std::vector<std::string>& argv);

// "2026-11-30", "2026-11-30T12:00", "2026-11-30 12:00:00" (UTC), or relative to `now`: "90m",
// "36h", "7d". nullopt when unreadable.
std::optional<double> parse_time(const std::string& text, double now);

}  // namespace report
