#pragma once
#include "pipeline/plan.hpp"

namespace commands {
// Prints, without running anything, what a run of `inv` would do and why. Exit status 0 when
// the configuration is sound and the tool is found, 1 otherwise.
int explain(const pipeline::Invocation& inv);
}
