#include "farm/experiment.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <cerrno>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/runner.hpp"
#include "farm/scheduler.hpp"
#include "runlog/read.hpp"
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

util::Status copy_into(const std::string& from, const std::string& to) {
  auto data = util::read_file(from, std::size_t(4) << 30);
  if (!data) return util::fail("cannot read " + from);
  struct stat st;
  mode_t mode = ::stat(from.c_str(), &st) == 0 ? st.st_mode & 0777 : 0644;
  if (!util::make_dirs(util::dirname(to)) || !util::write_file_atomic(to, *data, mode)) return util::fail("cannot write " + to);
  return util::Ok{};
}

// The profile and input files' part of the fingerprint, from DIR's copies (as create made them).
util::Result<std::string> inputs_digest(const Experiment& e, const util::SharedDirs& shared) {
  std::string digest;
  for (const auto& arm : e.spec.arms) {
    if (arm.profile.find('/') == std::string::npos) continue;
    auto text = farm::read_owned(arm.profile, shared, std::size_t(16) << 20);
    if (!text) return util::fail(text.error().empty() ? "no file " + arm.profile : text.error());
    digest += util::sha256_hex(*text) + " " + arm.profile + "\n";
  }
  for (const auto& f : e.spec.fresh_copy) {
    std::string path = e.spec.fresh_copy_from + "/" + bench::copy_target(f);
    auto data = farm::read_owned(path, shared, std::size_t(4) << 30);
    if (!data) return util::fail(data.error().empty() ? "no file " + path : data.error());
    digest += util::sha256_hex(*data) + " " + f + "\n";
  }
  return digest;
}

bool is_empty_dir(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return false;
  bool empty = true;
  while (auto* ent = ::readdir(d))
    if (std::string(ent->d_name) != "." && std::string(ent->d_name) != "..") empty = false;
  ::closedir(d);
  return empty;
}

}  // namespace

util::Result<std::string> read_owned(const std::string& path, const util::SharedDirs& shared, std::size_t limit,
                                     struct stat* st) {
  auto text = util::read_owned(path, shared, limit);
  if (!text.ok()) return util::fail(text.absent ? "" : text.why());
  if (st) *st = text.st;
  return std::move(text.content);
}

util::Status make_experiment_dir(const std::string& dir, const util::SharedDirs& shared) {
  auto parent = util::real_path(util::dirname(dir));
  bool team = parent && shared.covers(*parent);
  return util::make_owned_dir(dir, shared, team ? 0750 : 0700);
}

util::Status check_new_dir(const std::string& dir, const util::SharedDirs& shared) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) return util::Ok{};
  if (util::exists(experiment_path(dir)))
    return util::fail("--dir " + printable(dir) + " already holds an experiment: see it with edashim bench collect " + printable(dir) +
           " (--resubmit runs its missing rounds), or choose a new directory");
  if (auto bad = util::check_owned_dir(dir, shared); !bad)
    return util::fail("--dir " + printable(dir) + ": " + bad.error() + "; choose a new directory (edashim creates it, 0700)");
  if (!is_empty_dir(dir))
    return util::fail("--dir " + printable(dir) + " is not empty: an experiment's directory holds only what edashim writes in it; "
           "choose a new directory (edashim creates it)");
  return util::Ok{};
}

util::Status check_fingerprint(const std::string& dir, const Experiment& e, const util::SharedDirs& shared) {
  auto canon_dir = util::real_path(dir);
  if (!canon_dir) return util::fail("cannot resolve " + printable(dir));
  for (const auto& arm : e.spec.arms) {
    if (arm.profile.find('/') == std::string::npos) continue;
    if (util::real_path(util::dirname(arm.profile)) != *canon_dir + "/profiles")
      return util::fail("arm " + printable(arm.name) + "'s profile " + printable(arm.profile) + " is not the experiment's own copy in " +
             printable(dir) + "/profiles");
  }
  if (!e.spec.fresh_copy.empty() && util::real_path(e.spec.fresh_copy_from) != *canon_dir + "/inputs")
    return util::fail("its inputs " + printable(e.spec.fresh_copy_from) + " are not the experiment's own copies in " + printable(dir) + "/inputs");
  auto digest = inputs_digest(e, shared);
  if (!digest) return std::move(digest).take_error();
  if (fingerprint(e, *digest) != e.fingerprint)
    return util::fail("its fingerprint " + printable(e.fingerprint.substr(0, 64)) +
           " is not that of its contents: experiment.json or a profile or input in it changed since the experiment was made");
  return util::Ok{};
}

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

// nlohmann reports a malformed or mistyped document by throwing: caught here, at the library's
// edge, and given back as the reason.
util::Result<Experiment> from_json(const std::string& text) {
  try {
    json j = json::parse(text);
    if (j.at("format").get<int>() != kFormat)
      return util::fail("format " + std::to_string(j.at("format").get<int>()) + ", this edashim reads format " +
                        std::to_string(kFormat));
    Experiment e;
    e.executor = j.at("executor").get<std::string>();
    e.executor_args = j.at("executor_args").get<std::vector<std::string>>();
    e.edashim = j.at("edashim").get<std::string>();
    e.version = j.at("version").get<std::string>();
    e.cwd = j.at("cwd").get<std::string>();
    e.spec = spec_from(j.at("spec"));
    for (const auto& a : e.spec.arms)
      if (printable(a.name) != a.name || printable(a.profile) != a.profile)
        return util::fail("an arm's name or profile holds control characters: " + printable(a.name));
    e.fingerprint = j.at("fingerprint").get<std::string>();
    return e;
  } catch (const std::exception& ex) {
    return util::fail(std::string("not an edashim experiment: ") + ex.what());
  }
}

util::Result<Experiment> create(const std::string& dir, Experiment e, const util::SharedDirs& shared) {
  if (auto bad = check_new_dir(dir, shared); !bad) return std::move(bad).take_error();
  for (const char* sub : {"", "/rounds", "/profiles"})
    if (auto bad = make_experiment_dir(dir + sub, shared); !bad) return std::move(bad).take_error();
  for (std::size_t i = 0; i < e.spec.arms.size(); ++i) {
    auto& arm = e.spec.arms[i];
    if (arm.profile.find('/') == std::string::npos) continue;  // a named profile: each node's own
    std::string from = arm.profile[0] == '/' ? arm.profile : e.cwd + "/" + arm.profile;
    std::string to = dir + "/profiles/" + std::to_string(i) + "-" + util::basename(arm.profile);
    if (auto copied = copy_into(from, to); !copied) return std::move(copied).take_error();
    arm.profile = to;
  }
  for (const auto& f : e.spec.fresh_copy) {
    std::string from = f[0] == '/' ? f : e.cwd + "/" + f;
    std::string to = dir + "/inputs/" + bench::copy_target(f);
    if (auto copied = copy_into(from, to); !copied) return std::move(copied).take_error();
  }
  if (!e.spec.fresh_copy.empty()) e.spec.fresh_copy_from = dir + "/inputs";
  auto digest = inputs_digest(e, shared);
  if (!digest) return std::move(digest).take_error();
  e.fingerprint = fingerprint(e, *digest);
  if (!util::write_file_atomic(experiment_path(dir), to_json(e), 0644)) return util::fail("cannot write " + experiment_path(dir));
  e.own = true;
  return e;
}

util::Result<Experiment> load(const std::string& dir, const std::string& version, const util::SharedDirs& shared) {
  struct stat dir_st;
  if (::stat(dir.c_str(), &dir_st) != 0 && errno == ENOENT)
    return util::fail(printable(dir) + " holds no experiment (no such directory)");
  if (auto bad = util::check_owned_dir(dir, shared); !bad) return std::move(bad).take_error();
  struct stat fst, dst;
  auto text = farm::read_owned(experiment_path(dir), shared, std::size_t(16) << 20, &fst);
  if (!text) {
    if (!text.error().empty()) return std::move(text).take_error();
    return util::fail(printable(dir) + " holds no experiment (no " + printable(experiment_path(dir)) +
                      "); start one with edashim bench --executor slurm --dir " + printable(dir));
  }
  bool own = fst.st_uid == ::getuid() && ::stat(dir.c_str(), &dst) == 0 && dst.st_uid == ::getuid();
  auto e = nesting_exceeds(*text, kMaxNesting)
               ? util::fail("nested deeper than " + std::to_string(kMaxNesting) + " levels: not an edashim experiment")
               : from_json(*text);
  if (!e) return util::fail(printable(experiment_path(dir)) + ": " + printable(e.error()));
  e->own = own;
  // The version first: another version may compute the fingerprint otherwise, and "made by
  // edashim X" is the useful word then (a task of this version re-checks the fingerprint itself).
  if (e->version != version)
    return util::fail(printable(dir) + " was made by edashim " + printable(e->version) + " and this is edashim " + version +
                      ": its runs are not comparable with this version's; collect it with edashim " + printable(e->version) +
                      ", or start a new experiment in a new directory");
  if (auto bad = check_fingerprint(dir, *e, shared); !bad)
    return util::fail(printable(experiment_path(dir)) + ": " + bad.error() + "; refusing it (start a new experiment)");
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

namespace {

// One run line of a round file into `f`; false when it is the round's error line's kind.
void parse_run(const json& j, int round, RoundFile& f) {
  if (j.contains("error")) {
    f.error = j["error"].is_string() ? printable(j["error"].get<std::string>()) : "an error line that is not text";
    f.terminated = j.value("terminated", false);
    return;
  }
  RoundRun r;
  r.warmup = j.value("warmup", false);
  r.run.arm = j.value("arm", 0);
  r.run.round = round;
  r.run.order = j.value("order", 0);
  r.run.ok = j.value("ok", false);
  r.run.failure = printable(j.value("failure", ""));
  if (j.contains("hashes") && j["hashes"].is_object())
    for (auto& [k, v] : j["hashes"].items())
      if (v.is_string()) r.run.hashes[k] = v.get<std::string>();
  if (j.contains("record") && j["record"].is_object()) {
    r.run.log_line = j["record"].dump(-1, ' ', false, json::error_handler_t::replace);
    runlog::parse_run_line(r.run.log_line, r.run.record);
  }
  f.runs.push_back(std::move(r));
}

}  // namespace

RoundFile parse_round(const std::string& text, int round, bool complete, const std::string& fp) {
  RoundFile f;
  f.round = round;
  f.complete = complete;
  bool header = false;
  int skipped = 0;
  for (const auto& line : util::split(text, '\n')) {
    if (line.empty()) continue;
    // Refused before parsing: dumping a line nested 200000 deep recursed off the stack.
    if (nesting_exceeds(line, kMaxNesting)) {
      ++skipped;
      continue;
    }
    json j = json::parse(line, nullptr, false);
    // A task killed mid-write leaves a cut last line: the runs before it still count.
    if (j.is_discarded() || !j.is_object()) continue;
    try {  // .value() throws on a field of another type: the line is not ours, the rest still is
      if (!header) {
        header = true;
        if (j.value("fingerprint", "") != fp || j.value("round", -1) != round) {
          f.error = "written by another experiment (fingerprint or round differs)";
          f.complete = false;
          return f;
        }
        // Shown on terminals and in exports: control characters escaped once, here.
        f.host = printable(j.value("host", ""));
        f.cpu = printable(j.value("cpu", ""));
        f.task = printable(j.value("task", ""));
        continue;
      }
      parse_run(j, round, f);
    } catch (const std::exception&) {
      ++skipped;
    }
  }
  if (!header) f.complete = false;
  if (skipped > 0 && f.error.empty())
    f.error = std::to_string(skipped) + " line(s) of the round's file are not an edashim task's (nested too deep or of the "
              "wrong types) and were skipped";
  if (skipped > 0) f.complete = false;
  return f;
}

std::vector<RoundFile> read_rounds(const std::string& dir, const Experiment& e, const util::SharedDirs& shared) {
  std::vector<RoundFile> out;
  for (int r = 0; r < e.spec.runs; ++r) {
    bool complete = util::exists(round_path(dir, r, true));
    auto text = farm::read_owned(round_path(dir, r, complete), shared, std::size_t(256) << 20);
    if (!text && text.error().empty()) continue;
    out.push_back(text ? parse_round(*text, r, complete, e.fingerprint)
                       : RoundFile{r, false, "", "", "", text.error(), false, {}});
  }
  return out;
}

}  // namespace farm
