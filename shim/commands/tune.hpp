#pragma once
// `edashim tune`: allocator options swept on a command; a setting is kept only when it is faster
// than the current one on the evidence, within a peak-memory budget, and written out as a profile.
#include "commands/subcommand.hpp"

namespace commands {

Subcommand add_tune_command(CLI::App& app);

}  // namespace commands
