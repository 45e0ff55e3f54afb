#include "pipeline/plan.hpp"
#include "pipeline/submitters.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "alloc/allocators.hpp"
#include "alloc/registry.hpp"
#include "alloc/version.hpp"
#include "config/log_path.hpp"
#include "learn/explore.hpp"
#include "paths/layout.hpp"
#include "pipeline/learned_layer.hpp"
#include "pipeline/preflight.hpp"
#include "run/scratch.hpp"
#include "runlog/append.hpp"
#include "util/fs.hpp"
#include "util/os_release.hpp"
#include "util/machine.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace pipeline {

void select_from(Invocation& inv, const std::string& profile_flag, const std::string& allocator_flag) {
  // The flag wins over the environment variable; the origin names whichever was used.
  auto choose = [](const std::string& flag, const char* flag_name, const char* var, std::string& value,
                   std::string& origin) {
    if (!flag.empty()) {
      value = flag;
      origin = flag_name;
    } else if (const char* v = std::getenv(var); v && *v) {
      value = v;
      origin = var;
    }
  };
  choose(profile_flag, "--profile", "EDASHIM_PROFILE", inv.chosen.profile, inv.chosen.profile_origin);
  choose(allocator_flag, "--allocator", "EDASHIM_ALLOCATOR", inv.chosen.allocator, inv.chosen.allocator_origin);
}

std::string invoked_name(const char* executed, const char* argv0, bool (*is_script)(const char*)) {
  std::string path = executed ? executed : "";
  std::string given = argv0 ? argv0 : "";
  if (path.empty() || util::starts_with(path, "/dev/fd/") || util::starts_with(path, "/proc/self/fd/"))
    path = given;
  else if (!given.empty() && util::basename(given) != util::basename(path) && is_script && is_script(path.c_str()))
    path = given;
  std::string name = util::basename(path);
  return name.empty() ? "edashim" : name;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

std::vector<std::string> tool_names_of_profiles(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    if (f.size() <= 5 || f.compare(f.size() - 5, 5, ".toml") != 0 || f == "all.toml") continue;
    std::string name = f.substr(0, f.size() - 5);
    // A name the hook could not match as one entry of a colon list, or a hidden file.
    if (name[0] == '.' || name.find_first_of(":=/ \t\n") != std::string::npos) continue;
    out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// 1. The profile: every file that applies, merged, with the origin of each value.
config::Loaded load_profile(const Invocation& inv, const paths::Files& files, const std::vector<std::string>& env) {
  config::TrustStore trust(files.trust_file);
  config::TrustStore ignore(config::ignore_store_path(files.trust_file), config::Decision::ignored);
  config::LoadRequest req;
  req.tool = inv.tool;
  char cwd[4096];
  req.cwd = ::getcwd(cwd, sizeof cwd) ? cwd : "";
  req.shipped_dir = files.shipped_dir;
  req.system_file = files.system_file;
  req.user_file = files.user_file;
  req.user_profiles_dir = files.user_profiles_dir;
  req.chosen = inv.chosen;
  req.log = run::lookup(env, "EDASHIM_LOG").value_or("");
  req.supervise = run::lookup(env, "EDASHIM_SUPERVISE").value_or("");
  req.learned_file = files.learned_file;
  req.read_learned = learned_reader(files.learned_file, inv.tool, "", &fact_cache());
  req.trust = &trust;
  req.ignore = &ignore;
  return config::load(req);
}

// 2. The real tool: the explicit path, the profile's `path`, or the first on PATH that is not
// edashim itself.
void find_tool(Plan& plan, const std::vector<std::string>& env) {
  const auto& s = plan.loaded.settings;
  if (!plan.inv.explicit_path.empty()) {
    plan.tool_path = plan.inv.explicit_path;
  } else if (!s.tool_path.value.empty()) {
    plan.tool_path = s.tool_path.value;
    if (!util::is_regular_executable(plan.tool_path)) {
      plan.loaded.problems.push_back({s.tool_path.origin.file, s.tool_path.origin.line, 0,
                                      "path '" + plan.tool_path + "' is not an executable file", true});
      plan.tool_path.clear();
    }
  }
  if (plan.tool_path.empty()) {
    auto self = tool::SelfIdentity::current(run::lookup(env, kChainVar).value_or("").c_str());
    plan.resolution = tool::resolve(plan.inv.tool, run::lookup(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin"), self);
    plan.tool_path = plan.resolution.path;
  }
}

// 3. The allocator's library and its version (read once, from the fact cache when unchanged).
void choose_allocator(Plan& plan) {
  plan.allocator = plan.loaded.settings.allocator.value;
  plan.options_family = "glibc";
  if (plan.allocator == "system") return;
  std::string lib;
  if (plan.allocator[0] == '/') {
    lib = plan.allocator;
    plan.allocator_build = alloc::kBuildPath;
    if (!util::exists(lib)) plan.allocator_note = "library " + lib + " not found; running on the system allocator";
  } else if (auto* a = alloc::find(plan.allocator)) {
    // edashim's own build, then the user's library_dirs (a trusted setting), then the system's.
    const auto& setting = plan.loaded.settings.library_dirs.value;
    if (auto found = alloc::locate_preferring_own(*a, paths::layout().own_allocators, setting)) {
      lib = found->library;
      plan.allocator_build = found->build;
    } else {
      plan.allocator_note = plan.allocator + " library not found (edashim has no build of it; looked for " +
                            a->sonames.front() + " in " + (setting.empty() ? "" : util::join(setting, ", ") + ", ") +
                            "the usual library directories); running on the system allocator. " +
                            alloc::install_advice(a->name, util::this_distribution());
    }
  }
  if (lib.empty() || !plan.allocator_note.empty()) return;
  // ld.so would split the path and print an error in every process: the run keeps glibc's malloc.
  if (!run::preload_safe(lib)) return plan.unsafe_preloads.push_back(lib);
  plan.allocator_library = lib;
  plan.allocator_version = alloc::detect_version(lib, fact_cache());
  plan.options_family = alloc::allocator_of_library(lib);
}

// The allocator the probe must find serving malloc: the caller's own preload's, else the plan's.
void find_allocator_to_find(Plan& plan) {
  plan.allocator_to_find =
      plan.preloaded_by_caller.empty() ? plan.allocator : alloc::allocator_of_library(plan.preloaded_by_caller);
}

// 3b. An allocator the caller preloaded is their choice: none is added to it (two would stack).
void respect_callers_preload(Plan& plan, const std::vector<std::string>& env) {
  plan.preloaded_by_caller = run::preloaded_allocator(env);
  find_allocator_to_find(plan);
  if (plan.preloaded_by_caller.empty()) return;
  plan.allocator_library.clear();
  plan.allocator_version.clear();
  plan.allocator_note.clear();
  plan.options_family.clear();
}

// 5. Options are checked against what will really be loaded: a name the installed version does
// not know would otherwise be ignored without a word. From an untrusted project file, such a
// name is dropped with a warning: its mistake must not turn off the user's settings.
void check_options(Plan& plan) {
  auto& loaded = plan.loaded;
  for (auto& [family, options] : loaded.settings.options) {
    if (family != plan.options_family) continue;
    for (auto it = options.begin(); it != options.end();) {
      const auto& origin = it->second.origin;
      auto bad = alloc::check_option(family, plan.allocator_version, it->first, it->second.value);
      bool theirs = bad && loaded.is_untrusted(origin.file);
      if (bad) loaded.problems.push_back({origin.file, origin.line, 0, *bad + (theirs ? config::kUntrustedMistake : ""), !theirs});
      it = theirs ? options.erase(it) : std::next(it);
    }
  }
}

// 5b. The arm (learn::arm_name) of what runs: the caller's allocator; "system" when the pre-flight
// left the preload out; else the allocator preloaded (or "system") with the options applied to it,
// those the check kept.
void name_arm(Plan& plan) {
  if (!plan.preloaded_by_caller.empty()) {
    plan.arm = plan.allocator_to_find.empty() ? util::basename(plan.preloaded_by_caller) : plan.allocator_to_find;
    return;
  }
  if (!plan.fallback_library.empty()) {
    plan.arm = "system";
    return;
  }
  // With a library preloaded, options_family is its family (choose_allocator): "" for one unknown.
  std::string family = plan.allocator_library.empty() ? "system"
                       : plan.options_family.empty()  ? util::basename(plan.allocator_library)
                                                      : plan.options_family;
  std::vector<std::pair<std::string, std::string>> options;
  const auto& all = plan.loaded.settings.options;
  if (auto it = all.find(plan.options_family); it != all.end())
    for (const auto& [name, v] : it->second) options.emplace_back(name, alloc::render_option(v.value, true));
  plan.arm = learn::arm_name(family, options);
}

// The tools with a shipped profile of their own (defaults/NAME.toml but all.toml): what the exec
// hook routes through edashim, by file name.
std::vector<std::string> routed_tools(const std::string& shipped_dir) {
  std::vector<std::string> names;
  for (const auto& [name, path] : util::toml_files_in(shipped_dir + "/defaults")) names.push_back(name + ".toml");
  return tool_names_of_profiles(names);
}

// 6. Where the run goes: log, probe, scratch.
void choose_destinations(Plan& plan, const paths::Files& files, const std::vector<std::string>& env) {
  const auto& s = plan.loaded.settings;
  plan.log_path = log_path_of(s.log.value, plan.host);
  // Nothing ahead of a sanitizer's runtime, nothing where it cannot load, nothing a static
  // program would pass on unseen (preloads_nothing_of_ours).
  bool ours = util::exists(files.probe_library) && !plan.tool_path.empty() && !preloads_nothing_of_ours(plan.preflight);
  // An installation under a path with a space or colon: the run goes on without probe and hook.
  if (ours && !run::preload_safe(files.probe_library)) {
    plan.unsafe_preloads.push_back(files.probe_library);
    ours = false;
  }
  if (ours && s.probe.value) plan.probe_library = files.probe_library;
  // The exec hook shares the probe's library.
  if (ours) plan.hook_library = files.probe_library;
  // A profile or allocator asked for by name (a flag, EDASHIM_PROFILE, EDASHIM_ALLOCATOR; bench's
  // arms) is for the whole tree, as before routing: nothing below is routed to a profile of its own.
  bool chosen = !plan.inv.chosen.profile.empty() || !plan.inv.chosen.allocator.empty();
  auto routed = chosen ? std::vector<std::string>() : routed_tools(files.shipped_dir);
  plan.routed_tools = util::join(routed, ":");
  if (!chosen)
    for (const auto& [name, path] : s.routed_paths)
      plan.routed_paths += (plan.routed_paths.empty() ? "" : "\n") + name + "=" + path.value;
  // A flow's top (`edashim run -- make`, a Python flow script) runs plain: there is no allocator
  // to prove, and its tools are routed to runs and log lines of their own. Recording each of its
  // processes (make's recipes, by the thousand) cost ~50 us an exec for nothing.
  plan.flow_top = plan.inv.via_run && !chosen && plan.allocator == "system" && plan.preloaded_by_caller.empty() &&
                  std::find(routed.begin(), routed.end(), plan.inv.tool) == routed.end();
  if (!s.scratch.value) return;
  // A temporary directory the user set is theirs (it may be on a disk for a reason, or be
  // where they look for what a tool leaves): only an explicit "override" replaces it.
  std::string mine = run::user_temp_dir(env);
  if (!mine.empty() && !s.scratch_override.value) {
    plan.scratch_note = "your " + mine + " is kept (scratch = \"override\" would replace it with a tmpfs directory)";
    return;
  }
  auto need = scratch_need(s);
  auto base = run::find_scratch_base(need.bytes, need.rule);
  plan.scratch_base = base.own;
  plan.scratch_note = base.note;
  plan.scratch_refused = base.refused.refused;
  if (!mine.empty() && !base.dir.empty())
    plan.scratch_note += "; replaces your " + mine + " (scratch = \"override\" from " + s.scratch_override.origin.str() + ")";
}

}  // namespace

std::string unsafe_preload_note(const Plan& plan) {
  std::string out;
  for (const auto& lib : plan.unsafe_preloads) {
    bool alloc = !util::basename(lib).starts_with("libedashim_probe");
    out += (out.empty() ? "" : "; ") + lib + " is left out of LD_PRELOAD (ld.so splits it at spaces and colons): ";
    out += alloc ? plan.allocator + " is not used, the tool runs on glibc's malloc; fix: point library_dirs (or "
                   "allocator = \"/path\") at a directory whose path has neither"
                 : "this run is not recorded by the probe and tools started inside it are not routed; fix: put "
                   "edashim's tree under a path that has neither (install/install.sh --prefix DIR, or unpack the "
                   "tarball there)";
  }
  return out;
}

RunMode run_mode(const config::Setting<bool>& supervise) {
  if (supervise.value)
    return {true, "supervised (supervise = true, " + supervise.origin.str() +
                      "): edashim starts the tool as its child, waits for it and relays its signals"};
  return {false, "exec in place: the tool takes edashim's process (its pid, group, session, terminal, limits) and "
                 "nothing of edashim's runs beside it; its own process writes the log line at its end"};
}

Plan plain_run(const Plan& plan) {
  Plan plain = plan;
  plain.allocator = "system";
  plain.allocator_library.clear();
  plain.allocator_version.clear();
  plain.fallback_library.clear();
  plain.options_family.clear();
  plain.explored.clear();
  find_allocator_to_find(plain);
  describe_fallback(plain);
  name_arm(plain);
  return plain;
}

Plan make_plan(const Invocation& inv, const paths::Files& files, const std::vector<std::string>& env) {
  Plan plan;
  plan.inv = inv;
  plan.flow = run::flow_identity(env, run::new_run_id());
  plan.loaded = load_profile(inv, files, env);
  find_tool(plan, env);
  // A learned choice belongs to the binary it was learned on, which is known only now.
  if (auto& l = plan.loaded.learned; l && l->applied) {
    auto real = plan.tool_path.empty() ? std::string() : util::real_path(plan.tool_path).value_or(plan.tool_path);
    if (real != l->choice.binary)
      config::drop_learned(plan.loaded, "learned for " + l->choice.binary + ", this run's " + plan.inv.tool + " is " +
                                            (real.empty() ? "not found" : real));
  }
  choose_allocator(plan);
  respect_callers_preload(plan, env);
  inspect_tool(plan, env);  // 4. may drop the allocator for glibc tunables: before the options check
  check_options(plan);
  describe_fallback(plan);  // from the options the check kept
  name_arm(plan);
  choose_destinations(plan, files, env);
  auto mode = run_mode(plan.loaded.settings.supervise);
  plan.supervise = mode.supervise;
  plan.mode_note = mode.why;
  return plan;
}

void environment_settings(const config::Settings& s, run::EnvInputs& in) {
  if (auto options = s.options.find(in.options_family); options != s.options.end())
    for (const auto& [name, setting] : options->second) in.options.emplace_back(name, setting.value);
  in.locale = s.locale.value;
  for (const auto& [name, setting] : s.env) in.env.emplace_back(name, setting.value);
}


run::EnvPlan plan_environment(const Plan& plan, const std::vector<std::string>& env, const std::string& scratch_dir,
                              const std::string& probe_file) {
  run::EnvInputs in;
  in.current = env;
  // Runs below this one join its flow, with this run as their parent.
  in.markers.emplace_back(run::kFlowVar, plan.flow.flow);
  in.markers.emplace_back(run::kParentRunVar, plan.flow.run_id);
  in.allocator_library = plan.allocator_library;
  in.options_family = plan.options_family;
  environment_settings(plan.loaded.settings, in);
  in.probe_library = plan.probe_library;
  in.hook_library = plan.hook_library;
  in.scratch_dir = scratch_dir;
  std::string chain = run::lookup(env, kChainVar).value_or("");
  std::string self = util::self_exe();
  in.markers.emplace_back(kChainVar, chain.empty() ? self : chain + ":" + self);
  if (!probe_file.empty()) {
    in.markers.emplace_back(kNotesVar, probe_file);
    if (!plan.flow_top) in.markers.emplace_back(kProbeVar, probe_file);
  }
  if (!plan.hook_library.empty()) {
    in.markers.emplace_back(kExeVar, paths::layout().shim);
    // Job submitters are routed whatever was chosen: their jobs must not carry the run to a node.
    in.markers.emplace_back(kToolsVar, util::join(job_submitters(), ":") + (plan.routed_tools.empty() ? "" : ":") +
                                           plan.routed_tools);
    if (!plan.routed_paths.empty()) in.markers.emplace_back(kPathsVar, plan.routed_paths);
    // The run's own process starting this same tool again (a site's wrapper named like the tool:
    // `exec /usr/bin/yosys "$@"`, a module tree's, a vendor's) continues this run and its line,
    // with the environment it has: the exec hook routes it to edashim, which sees it is the
    // run's own process (run_tool.cpp: continues_the_run) and execs the tool plain.
    in.markers.emplace_back(kRunToolVar, plan.inv.tool);
  }
  return run::build_environment(in);
}

std::string log_path_of(const std::string& log, std::string& host) {
  if (log == "off") return "";
  if (log.empty()) return runlog::default_path();
  if (!config::names_host(log)) return log;
  if (host.empty()) host = util::host_name();
  return config::expand_log_path(log, host);
}

CurrentLog current_log(const paths::Files& files, const std::vector<std::string>& env) {
  Invocation inv;  // no tool: the top-level settings
  select_from(inv);
  auto loaded = load_profile(inv, files, env);
  CurrentLog out;
  std::string host;
  out.path = log_path_of(loaded.settings.log.value, host);
  out.origin = loaded.settings.log.origin;
  for (auto& p : loaded.problems)
    if (p.error) out.problems.push_back(std::move(p));
  return out;
}

ScratchNeed scratch_need(const config::Settings& s) {
  int64_t ram = run::ram_bytes();
  double percent = s.scratch_min_free_percent.value;
  ScratchNeed need{run::required_free_bytes(s.scratch_min_free_mb.value, percent, ram), ""};
  char share[32];
  std::snprintf(share, sizeof share, "%g", percent);
  need.rule = need.bytes > (s.scratch_min_free_mb.value << 20)
                  ? "scratch_min_free_percent = " + std::string(share) + " (of " + std::to_string(ram >> 20) + " MiB RAM)"
                  : "scratch_min_free_mb = " + std::to_string(s.scratch_min_free_mb.value);
  return need;
}

std::vector<std::string> sweep_bases(const Plan& plan) {
  std::vector<std::string> bases;
  for (const auto& c : run::scratch_candidates()) bases.push_back(run::own_base(c, ::getuid()));
  // A probe directory is made even with scratch off: in $XDG_RUNTIME_DIR or /tmp.
  for (const auto& b : {plan.scratch_base, probe_base(plan)})
    if (!b.empty() && std::find(bases.begin(), bases.end(), b) == bases.end()) bases.push_back(b);
  return bases;
}

}  // namespace pipeline
