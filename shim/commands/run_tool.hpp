#pragma once
// A tool run through edashim: the path taken under a shim name and by `edashim run`.
#include "commands/plan.hpp"

namespace commands {

// Runs the tool per its profile and returns only if it cannot even start (exit status).
// Otherwise edashim ends the way the tool ended.
int run_tool(const Invocation& inv);

}  // namespace commands
