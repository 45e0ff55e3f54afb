#pragma once
// What a run's line in the run log says, gathered from the plan, the run's setup and the
// outcome; runlog/write.hpp turns it into the line (fields: runlog/schema.hpp).
#include <string>
#include <vector>

#include "config/settings.hpp"

#include "pipeline/plan.hpp"
#include "run/environment.hpp"
#include "run/exit_notice.hpp"
#include "run/launch.hpp"
#include "runlog/write.hpp"
#include "util/fd.hpp"
#include "util/json_writer.hpp"

namespace pipeline {

// What a run set up around the tool, for the record.
struct RunSetup {
  run::EnvPlan env;
  std::string scratch;       // the private scratch directory; empty: none
  std::string scratch_note;
  bool keep_scratch = false;
  util::Fd scratch_lock;     // edashim's lock on the scratch for the run (run/scratch.hpp)
  bool scratch_left_in_use = false;  // a daemon of the run held it at the end: left to a later sweep
  bool probed = false;       // the probe records this run
};

// What is known once the tool has started: the run, the profile's files, the allocator, the
// environment changes, the scratch, the pre-flight and the "same work" key.
runlog::RunStart start_fields(const Plan& plan, const RunSetup& setup, const run::Outcome& started);

// What only the tool's end gives (times, peak RSS, status), and the probe's evidence of which
// allocator served malloc in each process.
runlog::RunEnd end_fields(const Plan& plan, const RunSetup& setup, const run::Outcome& out, const std::string& probe_records);

// What the probe's evidence is checked against, from the plan: kept with a run's unfinished
// line (pipeline/unfinished.hpp), so that the process that finishes it needs no plan.
struct VerifyInputs {
  bool probed = false;            // the probe records this run
  std::string unprobed_note;      // the verification when it does not
  bool flow_top = false;          // a flow's top: its processes are not listed
  std::string allocator_to_find;  // Plan::allocator_to_find
  std::string launcher;           // edashim's own executable: its records are not the tool's
  std::string nothing_recorded_suffix;  // added when no process recorded: why the probe could not load
};
VerifyInputs verify_inputs(const Plan& plan, bool probed);

// The probe's evidence (its records) into the line's processes, not_applied and verdict.
void verification_fields(runlog::RunEnd& e, const VerifyInputs& v, const std::string& probe_records);

// The end of a run whose tool ran in edashim's place (pipeline/finish.hpp): what its process
// told, or nothing (each figure nobody could know null).
runlog::RunEnd end_fields_in_place(const VerifyInputs& verify, const run::Ending& end, std::optional<bool> scratch_left_in_use,
                                   const std::string& probe_records);

// Opens the line with start_fields.
void write_start(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& started);

// Adds end_fields and closes the line.
void write_end(util::JsonWriter& j, const Plan& plan, const RunSetup& setup, const run::Outcome& out,
               const std::string& probe_records);

// Pure: the log's "config_error" for a configuration with errors: the first error as
// "FILE:LINE:COLUMN: what is wrong", and how many more there are. "" when none is an error.
std::string config_error_text(const std::vector<config::Problem>& problems);

}  // namespace pipeline
