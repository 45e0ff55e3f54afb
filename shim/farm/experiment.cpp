#include "farm/experiment.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/runner.hpp"
#include "report/log_line.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace farm {
namespace {

using nlohmann::json;

json spec_json(const bench::Spec& s) {
  json arms = json::array();
  for (const auto& a : s.arms) arms.push_back({{"name", a.name}, {"profile", a.profile}});
  return {{"arms", arms},
          {"command", s.command},
          {"runs", s.runs},
          {"warmup", s.warmup},
          {"fresh_copy", s.fresh_copy},
          {"fresh_copy_from", s.fresh_copy_from},
          {"on", s.on},
          {"compare", s.compare},
          {"compare_outputs", s.compare_outputs},
          {"compare_stdout", s.compare_stdout},
          {"stdout_filter", s.stdout_filter},
          {"seed", s.seed}};
}

bench::Spec spec_from(const json& j) {
  bench::Spec s;
  for (const auto& a : j.at("arms")) s.arms.push_back({a.at("name").get<std::string>(), a.at("profile").get<std::string>()});
  s.command = j.at("command").get<std::vector<std::string>>();
  s.runs = j.at("runs").get<int>();
  s.warmup = j.at("warmup").get<int>();
  s.fresh_copy = j.at("fresh_copy").get<std::vector<std::string>>();
  s.fresh_copy_from = j.at("fresh_copy_from").get<std::string>();
  s.on = j.at("on").get<std::string>();
  s.compare = j.at("compare").get<bool>();
  s.compare_outputs = j.at("compare_outputs").get<std::vector<std::string>>();
  s.compare_stdout = j.at("compare_stdout").get<bool>();
  s.stdout_filter = j.at("stdout_filter").get<std::string>();
  s.seed = j.at("seed").get<uint64_t>();
  s.jobs = 1;          // a task runs its round's arms one after another: they share a node
  s.progress = false;  // nobody watches a task's terminal
  return s;
}

json body(const Experiment& e) {
  return {{"format", kFormat},      {"executor", e.executor}, {"executor_args", e.executor_args},
          {"edashim", e.edashim},   {"version", e.version},   {"cwd", e.cwd},
          {"spec", spec_json(e.spec)}};
}

bool copy_into(const std::string& from, const std::string& to, std::string& error) {
  auto data = util::read_file(from, std::size_t(4) << 30);
  if (!data) {
    error = "cannot read " + from;
    return false;
  }
  struct stat st;
  mode_t mode = ::stat(from.c_str(), &st) == 0 ? st.st_mode & 0777 : 0644;
  if (!util::make_dirs(util::dirname(to)) || !util::write_file_atomic(to, *data, mode)) {
    error = "cannot write " + to;
    return false;
  }
  return true;
}

}  // namespace

std::string experiment_path(const std::string& dir) { return dir + "/experiment.json"; }

std::string round_path(const std::string& dir, int round, bool complete) {
  char name[40];
  std::snprintf(name, sizeof name, "/rounds/r%06d.%s", round, complete ? "jsonl" : "part");
  return dir + name;
}

std::string to_json(const Experiment& e) {
  json j = body(e);
  j["fingerprint"] = e.fingerprint;
  return j.dump(2) + "\n";
}

std::string fingerprint(const Experiment& e, const std::string& inputs_digest) {
  return util::sha256_hex(body(e).dump() + "\n" + inputs_digest);
}

std::optional<Experiment> from_json(const std::string& text, std::string& error) {
  try {
    json j = json::parse(text);
    if (j.at("format").get<int>() != kFormat) {
      error = "format " + std::to_string(j.at("format").get<int>()) + ", this edashim reads format " + std::to_string(kFormat);
      return std::nullopt;
    }
    Experiment e;
    e.executor = j.at("executor").get<std::string>();
    e.executor_args = j.at("executor_args").get<std::vector<std::string>>();
    e.edashim = j.at("edashim").get<std::string>();
    e.version = j.at("version").get<std::string>();
    e.cwd = j.at("cwd").get<std::string>();
    e.spec = spec_from(j.at("spec"));
    e.fingerprint = j.at("fingerprint").get<std::string>();
    return e;
  } catch (const std::exception& ex) {
    error = std::string("not an edashim experiment: ") + ex.what();
    return std::nullopt;
  }
}

std::optional<Experiment> create(const std::string& dir, Experiment e, std::string& error) {
  if (util::exists(experiment_path(dir))) {
    error = dir + " already holds an experiment";
    return std::nullopt;
  }
  if (!util::make_dirs(dir + "/rounds") || !util::make_dirs(dir + "/profiles")) {
    error = "cannot create " + dir + "/rounds";
    return std::nullopt;
  }
  std::string digest;
  for (std::size_t i = 0; i < e.spec.arms.size(); ++i) {
    auto& arm = e.spec.arms[i];
    if (arm.profile.find('/') == std::string::npos) continue;  // a named profile: each node's own
    std::string from = arm.profile[0] == '/' ? arm.profile : e.cwd + "/" + arm.profile;
    std::string to = dir + "/profiles/" + std::to_string(i) + "-" + util::basename(arm.profile);
    if (!copy_into(from, to, error)) return std::nullopt;
    digest += util::sha256_hex(util::read_file(to).value_or("")) + " " + to + "\n";
    arm.profile = to;
  }
  for (const auto& f : e.spec.fresh_copy) {
    std::string from = f[0] == '/' ? f : e.cwd + "/" + f;
    std::string to = dir + "/inputs/" + bench::copy_target(f);
    if (!copy_into(from, to, error)) return std::nullopt;
    digest += util::sha256_hex(util::read_file(to, std::size_t(4) << 30).value_or("")) + " " + f + "\n";
  }
  if (!e.spec.fresh_copy.empty()) e.spec.fresh_copy_from = dir + "/inputs";
  e.fingerprint = fingerprint(e, digest);
  if (!util::write_file_atomic(experiment_path(dir), to_json(e))) {
    error = "cannot write " + experiment_path(dir);
    return std::nullopt;
  }
  return e;
}

std::optional<Experiment> load(const std::string& dir, const std::string& version, std::string& error) {
  auto text = util::read_file(experiment_path(dir));
  if (!text) {
    error = dir + " holds no experiment (no " + experiment_path(dir) + "); start one with edashim bench --executor slurm --dir " + dir;
    return std::nullopt;
  }
  auto e = from_json(*text, error);
  if (!e) {
    error = experiment_path(dir) + ": " + error;
    return std::nullopt;
  }
  if (e->version != version) {
    error = dir + " was made by edashim " + e->version + " and this is edashim " + version +
            ": its runs are not comparable with this version's; collect it with edashim " + e->version +
            ", or start a new experiment in a new directory";
    return std::nullopt;
  }
  return e;
}

std::string header_line(int round, const std::string& fp, const std::string& host, const std::string& cpu,
                        const std::string& task) {
  return json{{"round", round}, {"fingerprint", fp}, {"host", host}, {"cpu", cpu}, {"task", task}}.dump() + "\n";
}

std::string run_line(const RoundRun& r, const std::string& log_line) {
  json j{{"arm", r.run.arm},         {"order", r.run.order}, {"warmup", r.warmup},
         {"ok", r.run.ok},           {"failure", r.run.failure}, {"hashes", r.run.hashes}};
  // The inner run's own log line, verbatim: read back by the same scanner as a local bench's.
  j["record"] = log_line.empty() ? json(nullptr) : json::parse(log_line, nullptr, false);
  return j.dump() + "\n";
}

std::string error_line(const std::string& message) { return json{{"error", message}}.dump() + "\n"; }

RoundFile parse_round(const std::string& text, int round, bool complete, const std::string& fp) {
  RoundFile f;
  f.round = round;
  f.complete = complete;
  bool header = false;
  for (const auto& line : util::split(text, '\n')) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    // A task killed mid-write leaves a cut last line: the runs before it still count.
    if (j.is_discarded() || !j.is_object()) continue;
    if (!header) {
      header = true;
      if (j.value("fingerprint", "") != fp || j.value("round", -1) != round) {
        f.error = "written by another experiment (fingerprint or round differs)";
        f.complete = false;
        return f;
      }
      f.host = j.value("host", "");
      f.cpu = j.value("cpu", "");
      f.task = j.value("task", "");
      continue;
    }
    if (j.contains("error")) {
      f.error = j.value("error", "");
      f.terminated = j.value("terminated", false);
      continue;
    }
    RoundRun r;
    r.warmup = j.value("warmup", false);
    r.run.arm = j.value("arm", 0);
    r.run.round = round;
    r.run.order = j.value("order", 0);
    r.run.ok = j.value("ok", false);
    r.run.failure = j.value("failure", "");
    if (j.contains("hashes") && j["hashes"].is_object())
      for (auto& [k, v] : j["hashes"].items())
        if (v.is_string()) r.run.hashes[k] = v.get<std::string>();
    if (j.contains("record") && j["record"].is_object()) report::parse_run_line(j["record"].dump(), r.run.record);
    f.runs.push_back(std::move(r));
  }
  if (!header) f.complete = false;
  return f;
}

std::vector<RoundFile> read_rounds(const std::string& dir, const Experiment& e) {
  std::vector<RoundFile> out;
  for (int r = 0; r < e.spec.runs; ++r) {
    bool complete = util::exists(round_path(dir, r, true));
    auto text = util::read_file(round_path(dir, r, complete), std::size_t(256) << 20);
    if (!text) continue;
    out.push_back(parse_round(*text, r, complete, e.fingerprint));
  }
  return out;
}

}  // namespace farm
