#pragma once
// `edashim bench`: profiles compared on one command, interleaved, with statistics, exports and a plot.
#include <string>
#include <vector>

#include "commands/subcommand.hpp"

namespace commands {

Subcommand add_bench_command(CLI::App& app);

}  // namespace commands
