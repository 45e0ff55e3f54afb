#pragma once
// The run's line in the run log (fields: runlog/schema.hpp). Most of it is written while the
// tool runs; only what the tool's end gives is added after.
#include <string>
#include <vector>

#include "config/settings.hpp"

#include "pipeline/plan.hpp"
#include "run/environment.hpp"
#include "run/launch.hpp"
#include "util/json_writer.hpp"

namespace pipeline {

// What a run set up around the tool, for the record.
struct RunSetup {
  run::EnvPlan env;
  std::string scratch;       // the private scratch directory; empty: none
  std::string scratch_note;
  bool keep_scratch = false;
  int scratch_lock = -1;     // edashim's lock on the scratch for the run (run/scratch.hpp)
  bool scratch_left_in_use = false;  // a daemon of the run held it at the end: left to a later sweep
  bool probed = false;       // the probe records this run
};

// Opens the line and writes what is known once the tool has started: the run, the profile's
// files, the allocator, the environment changes, the scratch and the pre-flight.
void write_start(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& started);

// Adds what only the tool's end gives (times, peak RSS, status), then the probe's evidence of
// which allocator served malloc in each process, and closes the line.
void write_end(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& out,
               const std::string& probe_records);

// Pure: the log's "config_error" for a configuration with errors: the first error as
// "FILE:LINE:COLUMN: what is wrong", and how many more there are. "" when none is an error.
std::string config_error_text(const std::vector<config::Problem>& problems);

}  // namespace pipeline
