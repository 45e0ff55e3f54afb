#pragma once
// `edashim tune`: allocator options swept on a command, best median wall time under a
// peak-memory budget, written out as a profile.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands/subcommand.hpp"

namespace commands {

Subcommand add_tune_command(CLI::App& app);

// --option FAMILY.KEY=V1,V2,...
struct TuneOption {
  std::string family, key;
  std::vector<std::string> values;
};
std::optional<TuneOption> parse_tune_option(const std::string& text, std::string& error);

// A value as TOML: integers, floats and booleans bare, anything else a quoted string.
std::string toml_value(const std::string& text);

// The profile file for one candidate: allocator plus its options, grouped by family.
std::string profile_toml(const std::string& allocator,
                         const std::map<std::string, std::map<std::string, std::string>>& options);

// One candidate of a sweep, as measured against baseline in the same interleaved bench.
struct Candidate {
  std::string value;  // "" = the option left at the allocator's default
  double median_s = 0, wall_ratio = 0, rss_ratio = 0;
  std::size_t ok = 0;
};
// The fastest candidate (least median wall) whose peak-RSS ratio is within the budget; when
// none is, the one using the least memory, with `within` false. nullopt when none succeeded.
std::optional<std::size_t> choose(const std::vector<Candidate>& candidates, double max_rss_ratio, bool& within);

}  // namespace commands
