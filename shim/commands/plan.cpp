#include "commands/plan.hpp"

#include <unistd.h>

#include <cstdlib>

#include "alloc/allocators.hpp"
#include "commands/proof.hpp"
#include "run/runlog.hpp"
#include "run/scratch.hpp"
#include "util/fs.hpp"
#include "util/layout.hpp"

extern char** environ;

namespace commands {

Paths Paths::discover() {
  Paths p;
  const util::Layout& l = util::layout();
  p.shipped_dir = l.shipped_profiles;
  p.probe_library = l.probe;
  p.system_file = "/etc/edashim/config.toml";
  std::string config_home = util::xdg_config_home() + "/edashim";
  p.user_file = config_home + "/config.toml";
  p.user_profiles_dir = config_home + "/profiles";
  p.trust_file = util::xdg_state_home() + "/edashim/trusted";
  return p;
}

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
  choose(profile_flag, "--profile", "EDASHIM_PROFILE", inv.profile, inv.profile_origin);
  choose(allocator_flag, "--allocator", "EDASHIM_ALLOCATOR", inv.allocator, inv.allocator_origin);
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  return env;
}

Plan make_plan(const Invocation& inv, const Paths& paths, const std::vector<std::string>& env) {
  Plan plan;
  plan.inv = inv;
  config::TrustStore trust(paths.trust_file);
  config::LoadRequest req;
  req.tool = inv.tool;
  char cwd[4096];
  req.cwd = ::getcwd(cwd, sizeof cwd) ? cwd : "";
  req.shipped_dir = paths.shipped_dir;
  req.system_file = paths.system_file;
  req.user_file = paths.user_file;
  req.user_profiles_dir = paths.user_profiles_dir;
  req.profile = inv.profile;
  req.profile_origin = inv.profile_origin;
  req.allocator = inv.allocator;
  req.allocator_origin = inv.allocator_origin;
  req.log = run::lookup(env, "EDASHIM_LOG").value_or("");
  req.trust = &trust;
  plan.loaded = config::load(req);
  const auto& s = plan.loaded.settings;

  // The tool.
  if (!inv.explicit_path.empty()) {
    plan.tool_path = inv.explicit_path;
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
    plan.resolution = tool::resolve(inv.tool, run::lookup(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin"), self);
    plan.tool_path = plan.resolution.path;
  }

  // The allocator and its options.
  plan.allocator = s.allocator.value;
  plan.options_family = "glibc";
  if (plan.allocator != "system") {
    std::string lib;
    if (plan.allocator[0] == '/') {
      lib = plan.allocator;
      if (!util::exists(lib)) plan.allocator_note = "library " + lib + " not found; running on the system allocator";
    } else if (auto* a = alloc::find(plan.allocator)) {
      auto found = alloc::locate(*a, alloc::library_dirs());
      if (found) lib = *found;
      else
        plan.allocator_note = plan.allocator + " library not found (looked for " + a->sonames.front() + " in " +
                              alloc::library_dirs().front() + " and the usual library directories); running on the "
                              "system allocator. Install it: apt-get install " +
                              (a->name == "mimalloc" ? "libmimalloc2.0" : a->name == "jemalloc" ? "libjemalloc2"
                               : a->name == "tcmalloc" ? "libtcmalloc-minimal4" : "libtbbmalloc2");
    }
    if (!lib.empty() && plan.allocator_note.empty()) {
      plan.allocator_library = lib;
      plan.allocator_version = alloc::version_of(lib);
      std::string family = alloc::allocator_of_library(lib);
      plan.options_family = family;
    }
  }
  apply_preflight(plan, env);  // may drop the allocator for glibc tunables: before the check below
  // Options are checked against what will really be loaded: a name the installed version does
  // not know would otherwise be ignored without a word.
  for (const auto& [family, options] : s.options) {
    if (family != plan.options_family) continue;
    for (const auto& [name, value] : options)
      if (auto bad = alloc::check_option(family, plan.allocator_version, name, value.value))
        plan.loaded.problems.push_back({value.origin.file, value.origin.line, 0, *bad, true});
  }

  // Where the run goes.
  const std::string& log = s.log.value;
  plan.log_path = log == "off" ? "" : log.empty() ? run::default_log_path() : log;
  if (s.probe.value && util::exists(paths.probe_library) && !plan.tool_path.empty()) plan.probe_library = paths.probe_library;
  if (s.scratch.value) {
    auto base = run::find_scratch_base(s.scratch_min_free_mb.value);
    plan.scratch_base = base.dir;
    plan.scratch_note = base.note;
  }
  return plan;
}

run::EnvPlan plan_environment(const Plan& plan, const std::vector<std::string>& env, const std::string& scratch_dir,
                              const std::string& probe_file) {
  run::EnvInputs in;
  in.current = env;
  in.settings = &plan.loaded.settings;
  in.allocator_library = plan.allocator_library;
  in.options_family = plan.options_family;
  in.probe_library = plan.probe_library;
  in.scratch_dir = scratch_dir;
  std::string chain = run::lookup(env, kChainVar).value_or("");
  std::string self = util::self_exe();
  in.markers.emplace_back(kChainVar, chain.empty() ? self : chain + ":" + self);
  if (!probe_file.empty()) in.markers.emplace_back(kProbeVar, probe_file);
  return run::build_environment(in);
}

}  // namespace commands
