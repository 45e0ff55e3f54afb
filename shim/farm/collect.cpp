#include "farm/collect.hpp"

#include <algorithm>
#include <set>

#include "util/strings.hpp"

namespace farm {
namespace {

std::string where(const RoundFile* f, const TaskState* t) {
  std::vector<std::string> parts;
  if (t && !t->state.empty()) parts.push_back(t->state + (t->reason.empty() ? "" : " (" + t->reason + ")"));
  std::string host = f && !f->host.empty() ? f->host : t ? t->node : "";
  if (!host.empty()) parts.push_back("on " + host);
  if (f && !f->task.empty()) parts.push_back(f->task);
  return util::join(parts, ", ");
}

std::size_t measured_runs(const RoundFile& f) {
  return std::size_t(std::count_if(f.runs.begin(), f.runs.end(), [](const RoundRun& r) { return !r.warmup; }));
}

}  // namespace

bench::RoundState round_state(int round, const RoundFile* f, const TaskState* t) {
  bench::RoundState s{round, "", where(f, t), t ? t->reason : ""};
  if (f && f->complete && f->error.empty()) {
    // The round's own file says all; the scheduler's word is left out, since it changes after
    // the fact (RUNNING while the task exits, then COMPLETED) and two collects must agree.
    s.state = "done";
    s.detail = where(f, nullptr);
    s.reason.clear();
    return s;
  }
  if (t && t->active()) {
    // A queued task may follow an earlier attempt's file: that file is the old attempt's.
    s.state = t->state == "PENDING" ? "pending" : "running";
    return s;
  }
  if (f) {
    std::size_t n = measured_runs(*f);
    std::string why = f->error.empty() ? "" : f->error;
    if (n == 0 && !f->error.empty() && !f->terminated) {
      s.state = "failed";
      s.detail = why + (s.detail.empty() ? "" : "; " + s.detail);
    } else {
      s.state = "partial";
      s.detail = std::to_string(n) + " run(s) before the task ended" + (why.empty() ? "" : ": " + why) +
                 (s.detail.empty() ? "" : "; " + s.detail);
    }
    return s;
  }
  s.state = "missing";
  if (!t) s.detail = "never submitted";
  else if (t->state == "COMPLETED") s.detail = "the task ended without writing the round (see its output); " + s.detail;
  return s;
}

bool Collected::finished() const {
  auto n = [&](const char* k) { auto it = count.find(k); return it == count.end() ? 0 : it->second; };
  return n("pending") == 0 && n("running") == 0;
}

Collected collect(const Experiment& e, const std::vector<RoundFile>& files, const std::map<int, TaskState>& tasks) {
  Collected c;
  std::map<int, const RoundFile*> by_round;
  for (const auto& f : files) by_round[f.round] = &f;
  std::set<std::string> hosts;
  std::map<std::string, int> cpus;
  for (int r = 0; r < e.spec.runs; ++r) {
    auto fi = by_round.find(r);
    auto ti = tasks.find(r);
    const RoundFile* f = fi == by_round.end() ? nullptr : fi->second;
    const TaskState* t = ti == tasks.end() ? nullptr : &ti->second;
    auto state = round_state(r, f, t);
    ++c.count[state.state];
    if (state.state == "partial" || state.state == "failed" || state.state == "missing") c.resubmittable.push_back(r);
    if (state.state == "done") {
      for (const auto& run : f->runs)
        if (!run.warmup) c.outcome.runs.push_back(run.run);
      hosts.insert(f->host);
      ++cpus[f->cpu.empty() ? "unknown CPU" : f->cpu];
    }
    c.outcome.rounds.push_back(state);
  }
  std::stable_sort(c.outcome.runs.begin(), c.outcome.runs.end(),
                   [](const bench::ArmRun& a, const bench::ArmRun& b) { return a.order < b.order; });
  std::vector<std::string> models;
  for (const auto& [cpu, n] : cpus) models.push_back(cpu + " (" + std::to_string(n) + " rounds)");
  c.outcome.machine = std::to_string(hosts.size()) + " host(s): " + (models.empty() ? "none yet" : util::join(models, ", "));
  return c;
}

std::string progress_line(const Collected& c, int rounds) {
  std::string out = std::to_string(rounds) + " rounds:";
  bool first = true;
  for (const char* k : {"done", "running", "pending", "partial", "failed", "missing"}) {
    auto it = c.count.find(k);
    if (it == c.count.end() || it->second == 0) continue;
    out += std::string(first ? " " : ", ") + std::to_string(it->second) + " " + k;
    first = false;
    // Why they wait, as Slurm says it (Resources, Priority, JobHeldUser): a held task waits forever.
    std::set<std::string> reasons;
    for (const auto& r : c.outcome.rounds)
      if (r.state == k && std::string(k) == "pending" && !r.reason.empty()) reasons.insert(r.reason);
    if (!reasons.empty()) out += " (" + util::join({reasons.begin(), reasons.end()}, ", ") + ")";
  }
  return out;
}

}  // namespace farm
