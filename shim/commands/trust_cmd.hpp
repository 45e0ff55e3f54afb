#pragma once
#include <string>

#include "commands/subcommand.hpp"

namespace commands {

// What `edashim trust` / `untrust` records about a project file.
enum class TrustAction {
  trust,    // use all of it, as it is now
  ignore,   // never use it, as it is now, and say nothing on runs (trust --ignore: direnv's deny)
  untrust,  // neither: back to undecided (the file's safe settings apply, with a warning)
};

// `edashim trust [--ignore] [FILE]` / `edashim untrust [FILE]`: FILE defaults to the nearest
// .edashim.toml.
int trust(const std::string& file, TrustAction action);

// Registers `trust` (with --ignore) for TrustAction::trust, `untrust` for TrustAction::untrust.
Subcommand add_trust_command(CLI::App& app, TrustAction which);

}  // namespace commands
