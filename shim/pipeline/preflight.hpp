#pragma once
// "Proof, not hope", before launch: the pre-flight verdict on the real tool's file, and the glibc
// fallback where no preload can work. (The probe's evidence after the run: pipeline/run_line.)
#include <string>
#include <vector>

#include "pipeline/plan.hpp"
#include "util/fact_cache.hpp"

namespace pipeline {

// The pre-flight facts every edashim process shares (paths::fact_cache_file()).
util::FactCache& fact_cache();

// Step 4 of make_plan: inspects the tool, and where the allocator cannot be preloaded, drops it
// and switches the options to glibc's tunables: the profile's [glibc], else the shipped
// [glibc_fallback].
void inspect_tool(Plan& plan, const std::vector<std::string>& env);

// Nothing of edashim's goes into LD_PRELOAD for this tool, neither the probe nor the exec hook:
// a sanitizer's runtime must load first, a foreign loader cannot load them, and a static program
// loads nothing while what it starts would inherit them unseen by the hook (a musl program below
// it would stop before main).
bool preloads_nothing_of_ours(const tool::Preflight& p);

// Step 5 of make_plan, after the options check (which may drop some): with a fallback, where the
// options that replace the allocator came from and what they can do for this tool
// (Plan::fallback_source, fallback_effect), for the warning, explain and the log.
void describe_fallback(Plan& plan);

// The one line for stderr, given once per binary (empty: nothing to say, or already said).
std::string preflight_warning(const Plan& plan);
void remember_warning_given(const Plan& plan);

// Where the probe's private directory goes: the user's own base (run::own_base) in the scratch
// tmpfs, $XDG_RUNTIME_DIR, or /tmp.
std::string probe_base(const Plan& plan);

}  // namespace pipeline
