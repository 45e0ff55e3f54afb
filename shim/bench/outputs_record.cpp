#include "bench/outputs_record.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "runlog/schema.hpp"
#include "util/json_writer.hpp"

namespace bench {

OutputsByAllocator outputs_by_allocator(const BenchResult& outcome, const std::vector<ArmStats>& arms) {
  OutputsByAllocator by;
  for (std::size_t a = 0; a < arms.size(); ++a) {
    if (arms[a].ok == 0 || arms[a].outputs.empty()) continue;
    std::string allocator;
    for (const auto& r : outcome.runs)
      if (r.arm == int(a) && r.ok && !r.record.allocator_requested.empty()) allocator = r.record.allocator_requested;
    if (allocator.empty()) continue;
    bool same = std::all_of(arms[a].outputs.begin(), arms[a].outputs.end(), [&](const auto& kv) {
      const OutputVerdict& v = kv.second;
      return v.kind == OutputVerdict::identical && (a == 0 || v.same_as_first == std::optional<bool>(true));
    });
    auto& list = same ? by.identical : by.differing;
    if (std::find(list.begin(), list.end(), allocator) == list.end()) list.push_back(allocator);
  }
  // Once differing, never identical.
  by.identical.erase(std::remove_if(by.identical.begin(), by.identical.end(),
                                    [&](const std::string& x) {
                                      return std::find(by.differing.begin(), by.differing.end(), x) != by.differing.end();
                                    }),
                     by.identical.end());
  return by;
}

std::string outputs_record_line(const std::string& tool, const std::string& path, const std::string& cpu, double start_unix,
                                const OutputsByAllocator& by) {
  util::JsonWriter w;
  w.begin_object();
  w.field(runlog::key::version, runlog::key::kVersion);
  w.field(runlog::key::record, runlog::key::bench_outputs);
  w.field(runlog::key::start_unix, start_unix);
  w.field(runlog::key::tool, tool);
  w.key(runlog::key::path).string_or_null(path);
  w.key(runlog::key::machine).begin_object().key(runlog::key::cpu).string_or_null(cpu).end_object();
  w.field(runlog::key::identical_arms, by.identical);
  w.field(runlog::key::differing_arms, by.differing);
  w.end_object();
  return w.str();
}

std::string mark_bench_line(const std::string& line, const std::string& experiment, const Arm& arm, int round) {
  namespace key = runlog::key;
  auto name = [](std::string_view k) { return std::string(k); };
  auto j = nlohmann::ordered_json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return line;
  j[name(key::bench)] = {{name(key::experiment), experiment}, {name(key::arm), arm.name}, {name(key::round), round + 1}};
  if (!arm.profile.empty() && (!j.contains(name(key::explore)) || j[name(key::explore)].is_null()))
    j[name(key::explore)] = {{name(key::ran), arm.profile}, {name(key::instead_of), nullptr}, {name(key::by), name(key::by_bench)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace bench
