#pragma once
// `edashim bench`: profiles compared on one command, interleaved, with statistics and a plot.
#include <string>

#include "bench/analysis.hpp"
#include "commands/subcommand.hpp"

namespace commands {

Subcommand add_bench_command(CLI::App& app);

// A table name for a profile: the name itself, or a profile file's name without .toml.
std::string arm_name(const std::string& profile);

// Prints the chosen format to stdout, failures and warnings to stderr, and writes the plot.
// Shared with `edashim tune` for its confirmation runs. Returns false when the plot could not be written.
bool print_bench(const bench::Spec& spec, const bench::Outcome& outcome, const std::vector<bench::ArmStats>& arms,
                 const std::string& format, const std::string& plot_path);

}  // namespace commands
