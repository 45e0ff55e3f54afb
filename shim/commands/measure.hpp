#pragma once
// What `edashim bench` and `edashim tune` share on the command line: the options of
// bench::Spec, declared once, and the Previewer that asks the run pipeline about an arm.
#include <CLI/CLI.hpp>

#include "bench/spec.hpp"

namespace commands {

// Declares -n/--runs, --warmup, -j/--jobs, --fresh-copy, --on, --seed and --no-progress on
// `cmd`, bound to `spec`.
void add_spec_options(CLI::App* cmd, bench::Spec& spec);

// Previews an arm as `edashim run --strict -p PROFILE -- COMMAND` would plan it: its
// configuration errors (an unknown profile with the nearest name, an option the installed
// allocator does not have, a tool not found), and the tool's environment size.
bench::ArmPreview preview_arm(const std::string& profile, const std::vector<std::string>& command,
                              const std::vector<std::string>& env);

// What `COMMAND` runs with today when nothing is chosen for it (your configuration, project
// file, learned choice; never an exploration): its arm name ("jemalloc", "system"); "" when its
// configuration has errors or the tool is not found (bench's own check then says why).
std::string current_arm(const std::vector<std::string>& command);

}  // namespace commands
