#pragma once
// A tool run through edashim, from invocation to exit: the path taken under a link's name and
// by `edashim run`. The steps, in the order they happen, are in run_tool() itself.
#include "pipeline/invocation.hpp"

namespace pipeline {

// Runs the tool per its profile and returns only if it cannot even start (exit status).
// Otherwise edashim ends the way the tool ended.
int run_tool(const Invocation& inv);

}  // namespace pipeline
