#include "pipeline/finish.hpp"
#include "pipeline/notices.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "config/settings.hpp"
#include "pipeline/run_line.hpp"
#include "pipeline/unfinished.hpp"
#include "run/exit_notice.hpp"
#include "run/probe_records.hpp"
#include "run/scratch.hpp"
#include "runlog/append.hpp"
#include "runlog/schema.hpp"
#include "util/fs.hpp"
#include "util/json_writer.hpp"

namespace pipeline {
namespace {

// Whether `dir` is this user's own private directory: not a link, nobody else may write it.
bool is_private_dir(const std::string& dir) {
  struct stat st;
  return ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() &&
         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// The record `name` in `dir`, when `dir` is a private directory and the record is of this
// edashim's format.
util::Result<Unfinished> read_unfinished(const std::string& dir, const char* name = kUnfinishedFile) {
  if (!is_private_dir(dir)) return util::fail(dir + " is not a private directory of this user's");
  auto text = util::read_file(dir + "/" + name, 64 << 20);
  if (!text) return util::fail(std::string("no ") + name + " line in " + dir);
  return parse_unfinished(*text);
}

std::string probe_records(const Unfinished& u) {
  return u.probe_file.empty() ? std::string() : util::read_file(u.probe_file, 64 << 20).value_or("");
}

util::Status append(const Unfinished& u, const runlog::RunEnd& end) {
  auto j = util::JsonWriter::continuing_object(u.line);
  runlog::write_end(j, end);
  return runlog::append_line(u.log, j.str(), u.limits, config::shared_dirs(u.shared_dirs));
}

}  // namespace

std::string log_not_written(const std::string& why) {
  return "run log not written (" + why + "); the run itself is unaffected (said once a session; details: edashim doctor; "
         "EDASHIM_LOG=off stops logging)";
}


void finish_run(const std::string& dir, int exit_code, const char* exit_notice) {
  // Nothing here may keep the tool's status from its caller: no exception leaves, and the
  // process ends with the tool's code.
  try {
    auto u = read_unfinished(dir);
    if (u) {
      run::Ending end;
      if (auto n = run::parse_exit_notice(exit_notice ? exit_notice : "")) end = run::ending_from_notice(*n, u->own, u->start_ns);
      else end.wait_status = (exit_code & 0xff) << 8;
      std::optional<bool> left_in_use;
      if (!u->scratch.empty() && !u->keep_scratch)
        left_in_use = run::remove_if_unlocked(u->scratch) == run::Removal::in_use;
      else if (!u->scratch.empty())
        left_in_use = false;
      auto records = probe_records(*u);
      if (!u->log.empty()) {
        auto written = append(*u, end_fields_in_place(u->verify, end, left_in_use, records));
        if (!written) notice(log_not_written(written.error()));
      }
      util::remove_tree(dir);
      sweep_runs_left(u->sweep_bases);
    } else if (auto done = read_unfinished(dir, kFinishedFile)) {
      // The probe wrote the line in the tool's process and found runs left to sweep.
      util::remove_tree(dir);
      sweep_runs_left(done->sweep_bases);
    } else if (is_private_dir(dir)) {
      util::remove_tree(dir);  // a record of another format: nobody could finish it
    }
  } catch (...) {
  }
  ::_exit(exit_code & 0xff);
}

void complete_unfinished(const std::string& dir) {
  auto u = read_unfinished(dir);
  if (!u || u->log.empty()) return;
  std::string records = probe_records(*u);
  runlog::RunEnd end = end_fields_in_place(u->verify, run::Ending{}, std::nullopt, records);
  // The run's own process went on as a program edashim's library cannot load into (a musl
  // program, a static one): it could not tell, which is no sign of a signal.
  if (std::string program = run::exec_without_us(records, u->pid); !program.empty())
    end.ended = std::string(runlog::key::kEndedUntoldAfterExec) + program + " (not_applied says why)";
  else
    end.ended = std::string(runlog::key::kEndedWithoutWord);
  (void)append(*u, end);  // nobody to tell: the run is long over
}

std::vector<std::string> default_sweep_bases() {
  std::vector<std::string> shared = run::scratch_candidates(), bases;
  shared.push_back("/tmp");
  if (const char* r = std::getenv("XDG_RUNTIME_DIR"); r && *r == '/') shared.emplace_back(r);
  for (const auto& b : shared)
    if (auto own = run::own_base(b, ::getuid()); std::find(bases.begin(), bases.end(), own) == bases.end())
      bases.push_back(own);
  return bases;
}

void sweep_runs_left(const std::vector<std::string>& bases, size_t budget) {
  for (const auto& base : bases) {
    if (budget == 0) return;
    budget -= run::sweep_stale_scratch(base, complete_unfinished, budget);
  }
}

}  // namespace pipeline
