#pragma once
// "Proof, not hope": the pre-flight verdict on the real tool, the glibc fallback where no
// preload can work, and the probe's evidence of which allocator served malloc in each process.
// The glue between tool/inspect, run/probe_records and the plan, explain and the run log.
#include "util/json_writer.hpp"
#include <string>
#include <vector>

#include "commands/plan.hpp"
#include "run/probe_records.hpp"

namespace commands {

// Inspects the tool, detects the allocator's version from its library, and where the allocator
// cannot be preloaded, drops it and switches the options to glibc's tunables: the profile's
// [glibc], else the shipped [glibc_fallback]. Called by make_plan before options are checked.
void apply_preflight(Plan& plan, const std::vector<std::string>& env);

// What the tunables can do for this tool when they replace the allocator.
std::string fallback_effect(const Plan& plan);

// The one line for stderr, given once per binary (empty: nothing to say, or already said).
std::string preflight_warning(const Plan& plan);
void remember_warning_given(const Plan& plan);

// Where the probe's private directory goes: the scratch tmpfs, $XDG_RUNTIME_DIR, or /tmp.
std::string probe_base(const Plan& plan);

// Adds "preflight" to a run's log line (known before the tool ends).
void add_preflight(util::JsonWriter& record, const Plan& plan, const run::EnvPlan& env);
// Adds "processes", "allocator_verified" and "verification" (from the probe's records).
void add_verification(util::JsonWriter& record, const Plan& plan, bool probed, const std::string& probe_records);

// The pre-flight section of `edashim explain`.
void print_proof(const Plan& plan, const run::EnvPlan& env);

}  // namespace commands
