#include "commands/proof.hpp"

#include <cstdio>

#include "alloc/allocators.hpp"
#include "alloc/version.hpp"
#include "util/fact_cache.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace commands {
namespace {

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

void add_preflight(util::JsonWriter& record, const Plan& plan, const run::EnvPlan& env) {
  const auto& p = plan.preflight;
  auto& pf = record.key("preflight").begin_object();
  pf.field("inspected", p.inspected);
  if (!p.inspected) pf.field("error", p.error);
  pf.field("path", p.path);
  pf.field("scripts", p.scripts);
  pf.key("binary").string_or_null(p.binary);
  pf.key("kind").string_or_null(p.facts.kind);
  pf.field("own_malloc", p.facts.defines_malloc);
  pf.key("linked_allocator").string_or_null(p.facts.linked_allocator_library);
  pf.key("secure_exec").string_or_null(p.secure);
  pf.field("glibc_static", p.facts.glibc_static);
  if (p.inspected)
    pf.field("preload_reaches", p.preload_reaches());
  else
    pf.key("preload_reaches").null();
  pf.key("blocker").string_or_null(p.blocker);
  pf.key("reason").string_or_null(p.reason);
  pf.key("note").string_or_null(p.linked_note);
  pf.field("cached", p.cached);
  if (!plan.fallback_library.empty()) {
    pf.key("fallback").begin_object();
    pf.field("instead_of", plan.fallback_library);
    pf.field("options", plan.options_family);
    pf.key("source").string_or_null(fallback_source(plan));
    pf.field("glibc_tunables", run::lookup(env.env, "GLIBC_TUNABLES"));
    pf.field("effect", fallback_effect(plan));
    pf.end_object();
  } else {
    pf.key("fallback").null();
  }
  pf.end_object();
}

void add_verification(util::JsonWriter& record, const Plan& plan, bool probed, const std::string& probe_records) {
  const auto& p = plan.preflight;
  if (!probed) {
    record.key("processes").null();
    record.field("allocator_verified", false);
    record.field("verification", !plan.loaded.settings.probe.value
                                     ? "probe off (probe = false, " + plan.loaded.settings.probe.origin.str() + ")"
                                     : std::string("probe not run (libedashim_probe.so not installed, or no private "
                                                   "directory for its records)"));
    return;
  }
  auto processes = run::parse_probe_records(probe_records);
  record.key("processes").begin_array();
  for (const auto& q : processes) {
    record.begin_object();
    record.field("pid", q.pid).field("ppid", q.ppid).field("exe", q.exe).field("malloc", q.malloc_object);
    record.field("provider", run::malloc_provider(q)).field("forked", q.forked).field("end", q.end);
    record.field("vm_hwm_kb", q.vm_hwm_kb).field("vm_peak_kb", q.vm_peak_kb);
    record.end_object();
  }
  record.end_array();
  auto v = run::verify_allocator(processes, plan.allocator);
  if (processes.empty() && p.inspected && !p.preload_reaches() && p.blocker != "own-malloc")
    v.note += " (" + p.reason + "; the probe cannot load either)";
  record.field("allocator_verified", v.verified);
  record.field("verification", v.note);
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
