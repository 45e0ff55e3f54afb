#include "tool/path_order.hpp"

#include "util/strings.hpp"

namespace tool {

OrderReport analyse_order(const std::vector<Found>& found) {
  OrderReport r;
  for (const auto& f : found)
    if (!f.edashim) {
      r.real = f.path;
      break;
    }
  if (!found.empty()) r.runs_now = found.front().path;
  bool ours = false;
  for (const auto& f : found) ours = ours || (f.in_shim_dir && f.edashim);
  if (!ours) {
    r.order = Order::NotOnPath;
    return r;
  }
  const Found& first = found.front();
  if (!first.edashim) r.order = Order::Shadowed;
  else if (!first.in_shim_dir) r.order = Order::OtherEdashim;
  else if (r.real.empty()) r.order = Order::NoRealTool;
  else r.order = Order::Ok;
  return r;
}

std::string path_line(const std::string& shell, const std::string& dir) {
  std::string q = util::shell_quote(dir);
  if (shell == "fish") return "contains -- " + q + " $PATH; or set -gx PATH " + q + " $PATH";
  // bash and zsh: prepend once, so nested shells do not grow PATH.
  return "case \":$PATH:\" in *:" + q + ":*) ;; *) export PATH=" + q + ":\"$PATH\" ;; esac";
}

ModuleScene module_scene(const char* lmod_cmd, const char* modules_cmd, const char* modules_home, const char* loaded) {
  ModuleScene m;
  auto set = [](const char* v) { return v && *v; };
  if (set(lmod_cmd)) m.system = Modules::kLmod;
  else if (set(modules_cmd) || set(modules_home)) m.system = Modules::kEnvironmentModules;
  if (set(loaded))
    for (const auto& name : util::split(loaded, ':'))
      if (name == "edashim" || name.rfind("edashim/", 0) == 0) m.edashim_loaded = true;
  return m;
}

std::string links_first_fix(const ModuleScene& scene, const std::string& modulefiles, const std::string& plain_fix) {
  if (modulefiles.empty()) return plain_fix;
  switch (scene.system) {
    case Modules::kLmod:
      // Loaded and still shadowed: not by a module (a line in a login file after it), or by an
      // older copy of the module without the priority.
      if (scene.edashim_loaded) return plain_fix;
      return "module use " + util::shell_quote(modulefiles + "/lua") +
             " && module load edashim   (Lmod keeps its links ahead of tool modules loaded after it; "
             "for good, put both in your login files)";
    case Modules::kEnvironmentModules:
      return std::string(scene.edashim_loaded ? "module unload edashim && module load edashim"
                                              : "module use " + util::shell_quote(modulefiles + "/tcl") +
                                                    " && module load edashim") +
             "   (Environment Modules has no path priority: edashim's module moves its links back first from the "
             "module command after it is loaded on; a tool's module loaded in the same command, or a site that "
             "locks extra_siteconfig, puts the tool ahead of them)";
    case Modules::kNone:
      break;
  }
  return plain_fix;
}

}  // namespace tool
