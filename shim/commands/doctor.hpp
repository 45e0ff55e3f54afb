#pragma once
// `edashim doctor`: is this installation working, and if not, the command that fixes each
// problem. Reads and stats files; changes nothing of the user's (not even the log it checks),
// though planning a run may fill edashim's cache of facts about binaries.
#include "commands/subcommand.hpp"

namespace commands {
Subcommand add_doctor_command(CLI::App& app);
}
