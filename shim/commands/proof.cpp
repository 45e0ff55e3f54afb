#include "commands/proof.hpp"

#include <cstdio>

#include "alloc/allocators.hpp"
#include "alloc/version.hpp"
#include "util/fact_cache.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace commands {
namespace {

nlohmann::json str_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

// Where the options that replace the allocator came from, for explain and the log.
std::string fallback_source(const Plan& plan) {
  const auto& opts = plan.loaded.settings.options;
  auto it = opts.find(plan.options_family);
  if (it == opts.end() || it->second.empty()) return "";
  return "[" + plan.options_family + "] from " + it->second.begin()->second.origin.file;
}

}  // namespace

namespace {
void choose_fallback(Plan& plan, const std::vector<std::string>& env) {
  if (plan.tool_path.empty()) return;
  auto& cache = util::shared_fact_cache();
  plan.preflight = tool::inspect(plan.tool_path, run::lookup(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin"), cache);
  if (!plan.allocator_library.empty()) plan.allocator_version = alloc::detect_version(plan.allocator_library, cache);
  if (plan.allocator_library.empty() || !plan.preflight.inspected || plan.preflight.preload_reaches()) return;
  // The preload would do nothing (or nothing but initialise a second allocator): leave it out
  // and give glibc's malloc, which may be what really runs, the profile's tunables instead.
  plan.fallback_library = plan.allocator_library;
  plan.allocator_library.clear();
  const auto& opts = plan.loaded.settings.options;
  auto g = opts.find("glibc");
  plan.options_family = g != opts.end() && !g->second.empty() ? "glibc" : "glibc_fallback";
}

void check_fallback_options(Plan& plan) {
  // Checked on every run, used or not, so that a mistake shows before the day a static tool
  // needs the set; a warning while unused.
  if (plan.options_family == "glibc_fallback") return;  // make_plan checks what is used, as errors
  auto it = plan.loaded.settings.options.find("glibc_fallback");
  if (it == plan.loaded.settings.options.end()) return;
  for (const auto& [name, value] : it->second)
    if (auto bad = alloc::check_option("glibc_fallback", "", name, value.value))
      plan.loaded.problems.push_back({value.origin.file, value.origin.line, 0, *bad, false});
}
}  // namespace

void apply_preflight(Plan& plan, const std::vector<std::string>& env) {
  choose_fallback(plan, env);
  check_fallback_options(plan);
}

std::string fallback_effect(const Plan& plan) {
  const auto& p = plan.preflight;
  if (p.blocker == "static" || p.blocker == "static-pie")
    return p.facts.glibc_static ? "its static glibc reads GLIBC_TUNABLES at start"
                                : "it is not a static glibc program, so GLIBC_TUNABLES likely does nothing for it";
  // Seen on Debian 12: a setuid-to-nobody static program run by root ignored mmap_threshold.
  if (p.blocker == "secure-exec") return "glibc ignores malloc tunables in secure-execution mode: expect no effect on it";
  if (p.blocker == "own-malloc") return "its own allocator serves malloc: the tunables reach only what still uses glibc's malloc";
  return "";
}

std::string preflight_warning(const Plan& plan) {
  const auto& p = plan.preflight;
  if (!p.inspected || p.warned) return "";
  std::string tool = plan.inv.tool;
  if (!plan.fallback_library.empty()) {
    std::string instead = plan.loaded.settings.options.count(plan.options_family)
                              ? "applying glibc malloc tunables (" + fallback_source(plan) + ") instead: " + fallback_effect(plan)
                              : "running on its own malloc";
    return plan.allocator + " is not preloaded for " + tool + ": " + p.reason + "; " + instead +
           " (said once for this binary; details: edashim explain " + tool + ")";
  }
  if (!p.linked_note.empty()) return "note: " + p.linked_note + " (said once for this binary)";
  return "";
}

void remember_warning_given(const Plan& plan) { tool::mark_warned(plan.preflight, util::shared_fact_cache()); }

std::string probe_base(const Plan& plan) {
  if (!plan.scratch_base.empty()) return plan.scratch_base;
  if (const char* r = std::getenv("XDG_RUNTIME_DIR"); r && *r == '/' && util::is_directory(r)) return r;
  return "/tmp";
}

void add_proof(nlohmann::json& record, const Plan& plan, const run::EnvPlan& env, bool probed,
               const std::string& probe_records) {
  const auto& p = plan.preflight;
  nlohmann::json pf;
  pf["inspected"] = p.inspected;
  if (!p.inspected) pf["error"] = p.error;
  pf["path"] = p.path;
  pf["scripts"] = p.scripts;
  pf["binary"] = str_or_null(p.binary);
  pf["kind"] = str_or_null(p.facts.kind);
  pf["own_malloc"] = p.facts.defines_malloc;
  pf["linked_allocator"] = str_or_null(p.facts.linked_allocator_library);
  pf["secure_exec"] = str_or_null(p.secure);
  pf["glibc_static"] = p.facts.glibc_static;
  pf["preload_reaches"] = p.inspected ? nlohmann::json(p.preload_reaches()) : nlohmann::json(nullptr);
  pf["blocker"] = str_or_null(p.blocker);
  pf["reason"] = str_or_null(p.reason);
  pf["note"] = str_or_null(p.linked_note);
  pf["cached"] = p.cached;
  if (!plan.fallback_library.empty()) {
    auto tunables = run::lookup(env.env, "GLIBC_TUNABLES");
    pf["fallback"] = {{"instead_of", plan.fallback_library},
                      {"options", plan.options_family},
                      {"source", str_or_null(fallback_source(plan))},
                      {"glibc_tunables", tunables ? nlohmann::json(*tunables) : nlohmann::json(nullptr)},
                      {"effect", fallback_effect(plan)}};
  } else {
    pf["fallback"] = nullptr;
  }
  record["preflight"] = pf;

  if (!probed) {
    record["processes"] = nullptr;
    record["allocator_verified"] = false;
    record["verification"] = !plan.loaded.settings.probe.value
                                 ? "probe off (probe = false, " + plan.loaded.settings.probe.origin.str() + ")"
                                 : "probe not run (libedashim_probe.so not installed, or no private directory for its records)";
    return;
  }
  auto processes = run::parse_probe_records(probe_records);
  auto& list = record["processes"] = nlohmann::json::array();
  for (const auto& q : processes) {
    nlohmann::json j = {{"pid", q.pid},       {"ppid", q.ppid},   {"exe", q.exe},
                        {"malloc", q.malloc_object}, {"provider", run::malloc_provider(q)},
                        {"forked", q.forked}, {"end", q.end}};
    j["vm_hwm_kb"] = q.vm_hwm_kb ? nlohmann::json(*q.vm_hwm_kb) : nlohmann::json(nullptr);
    j["vm_peak_kb"] = q.vm_peak_kb ? nlohmann::json(*q.vm_peak_kb) : nlohmann::json(nullptr);
    list.push_back(j);
  }
  auto v = run::verify_allocator(processes, plan.allocator);
  if (processes.empty() && p.inspected && !p.preload_reaches() && p.blocker != "own-malloc")
    v.note += " (" + p.reason + "; the probe cannot load either)";
  record["allocator_verified"] = v.verified;
  record["verification"] = v.note;
}

void print_proof(const Plan& plan, const run::EnvPlan& env) {
  const auto& p = plan.preflight;
  if (plan.tool_path.empty()) return;
  std::printf("\npre-flight (from the tool's file, before launch):\n");
  if (!p.inspected) {
    std::printf("  not inspected: %s\n", p.error.c_str());
    return;
  }
  for (size_t i = 0; i < p.scripts.size(); ++i)
    std::printf("  %-20s %s: a #! script; the preload passes through its interpreter %s\n", i ? "" : "script",
                p.scripts[i].c_str(), i + 1 < p.scripts.size() ? p.scripts[i + 1].c_str() : p.binary.c_str());
  std::string kind = p.facts.kind;
  if (kind == "dynamic") kind += ", loader " + p.facts.interpreter;
  if (p.facts.glibc_static) kind += ", glibc";
  std::printf("  %-20s %s (%s)\n", "executable", p.binary.c_str(), kind.c_str());
  if (p.facts.defines_malloc) std::printf("  %-20s defines malloc itself\n", "");
  if (!p.facts.linked_allocator_library.empty())
    std::printf("  %-20s links %s\n", "", p.facts.linked_allocator_library.c_str());
  if (!p.secure.empty()) std::printf("  %-20s secure-execution mode: %s\n", "", p.secure.c_str());
  if (p.preload_reaches()) {
    std::printf("  %-20s reaches malloc%s\n", "preload", plan.allocator_library.empty() ? " (nothing to preload)" : "");
  } else {
    std::printf("  %-20s CANNOT serve malloc: %s\n", "preload", p.reason.c_str());
  }
  if (!p.linked_note.empty()) std::printf("  %-20s %s\n", "note", p.linked_note.c_str());
  if (!plan.fallback_library.empty()) {
    auto tunables = run::lookup(env.env, "GLIBC_TUNABLES");
    std::printf("  %-20s %s is left out of LD_PRELOAD\n", "instead", plan.fallback_library.c_str());
    if (tunables)
      std::printf("  %-20s GLIBC_TUNABLES=%s (%s): %s\n", "", tunables->c_str(), fallback_source(plan).c_str(),
                  fallback_effect(plan).c_str());
    else
      std::printf("  %-20s no [glibc] or [glibc_fallback] options configured: nothing replaces it\n", "");
  }
  if (!plan.probe_library.empty())
    std::printf("  %-20s on: each process records the object serving malloc; the run log gets \"processes\" and "
                "\"allocator_verified\"%s\n",
                "probe", p.blocker == "own-malloc" || p.preload_reaches() ? "" : " (it cannot load here either)");
  else
    std::printf("  %-20s off (%s)\n", "probe",
                plan.loaded.settings.probe.value ? "libedashim_probe.so not found" : "probe = false");
  std::printf("  %-20s %s\n", "inspection", p.cached ? "from the cache (file unchanged since last time)" : "read the file now");
}

}  // namespace commands
