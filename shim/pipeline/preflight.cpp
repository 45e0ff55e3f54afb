#include "pipeline/preflight.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "alloc/allocators.hpp"
#include "paths/files.hpp"
#include "paths/layout.hpp"
#include "probe/loader_check.h"
#include "run/environment.hpp"
#include "run/scratch.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace pipeline {

util::FactCache& fact_cache() {
  static util::FactCache cache(paths::fact_cache_file());
  return cache;
}

namespace {
// A finite address-space limit (ulimit -v) is sized for the tool as it runs without edashim:
// every allocator reserves more address space than glibc at start (measured with Debian 12's
// yosys on a small synthesis: the least RLIMIT_AS it ran under was 31 MiB plain, 36 MiB with
// tbbmalloc, 42 MiB with jemalloc or tcmalloc, 59 MiB with mimalloc), and more again per thread
// and arena, so a limit the tool fits in may not fit the tool with an allocator.
void check_address_space_limit(Plan& plan) {
  struct rlimit as;
  if (plan.allocator_library.empty() || !plan.preflight.preload_reaches() || ::getrlimit(RLIMIT_AS, &as) != 0 ||
      as.rlim_cur == RLIM_INFINITY)
    return;
  plan.preflight.blocker = tool::Blocker::address_space_limit;
  plan.preflight.reason = "the address space is limited (ulimit -v " + std::to_string(as.rlim_cur / 1024) +
                          " KiB), and an allocator reserves more of it than glibc's malloc: with it the tool could "
                          "fail where it runs without edashim";
}

// A program started by a loader other than the system's (a bundle's own glibc, musl, ld.so run
// by hand) gets nothing of edashim's unless its libraries can be shown to load there: a preload
// that cannot load stops the program before main, where it starts fine directly.
void check_loader(Plan& plan) {
  auto& p = plan.preflight;
  std::string target = p.binary.empty() ? plan.tool_path : p.binary;
  bool explicit_run = edh_is_loader_name(util::basename(target).c_str());
  std::string loader = explicit_run ? target : p.facts.kind == tool::ExecKind::dynamic ? p.facts.interpreter : "";
  const char* sys = edh_system_loader();
  if (loader.empty() || (sys && loader == sys)) return;
  if (auto a = util::file_id(loader), b = sys ? util::file_id(sys) : std::nullopt; a && b && *a == *b) return;
  std::string ours = plan.allocator_library.empty() ? paths::layout().probe
                                                    : plan.allocator_library + ":" + paths::layout().probe;
  std::vector<const char*> argv;
  for (const auto& a : plan.inv.argv) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  if (argv.size() < 2) argv.insert(argv.begin(), "");
  edh_verdict v{};
  if (loader.size() >= sizeof v.loader) return;
  loader.copy(v.loader, loader.size());
  if (edh_loads_there(v.loader, argv.data(), explicit_run, ours.c_str(), &v)) return;
  p.blocker = tool::Blocker::foreign_loader;
  p.reason = std::string("it is started by the loader ") + v.loader + ", and edashim's libraries need " + v.missing +
             " where that loader's libc has " + (v.has[0] ? v.has : "none") +
             ": nothing is preloaded, or the tool would stop before main";
}

// The highest GLIBC_x.y the libc of the tool's loader defines, "" when unknown (a loader run by
// hand, whose --library-path may name another). Read once a libc file (the fact cache), then a
// stat() a run.
std::string tool_glibc(const Plan& plan) {
  const auto& p = plan.preflight;
  std::string target = p.binary.empty() ? plan.tool_path : p.binary;
  if (p.facts.kind != tool::ExecKind::dynamic || p.facts.interpreter.empty() ||
      edh_is_loader_name(util::basename(target).c_str()))
    return "";
  char libc[EDH_PATH_CAP];
  struct stat st;
  if (!edh_loader_libc(p.facts.interpreter.c_str(), libc, sizeof libc) || ::stat(libc, &st) != 0) return "";
  auto stamp = util::FileStamp::of(st);
  auto facts = fact_cache().get(stamp).value_or(util::Facts{});
  if (auto it = facts.find("glibc"); it != facts.end()) return it->second;
  int fd = ::open(libc, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char missing[64] = "", best[64] = "";
  bool is_libc = edh_libc_covers(edh_read_fd, &fd, "", missing, sizeof missing, best, sizeof best) >= 0;
  ::close(fd);
  facts["glibc"] = is_libc ? best : "";
  fact_cache().put(stamp, facts);
  fact_cache().save();
  return facts["glibc"];
}

// edashim's build of the allocator for the newest glibc the tool's libc has, where it made one
// (install/allocators/build.sh): the floor's build (glibc 2.28) brings libpthread's and libdl's
// empty stubs into every process of the run, about 0.1 ms of each child's start
// (docs/overhead.md). A loader older than every such build keeps the floor's.
void choose_build_for_glibc(Plan& plan) {
  if (plan.allocator_build != alloc::kBuildEdashim || plan.allocator_library.empty() ||
      !plan.preflight.preload_reaches())
    return;
  auto builds = alloc::builds_for_newer_glibc(plan.allocator_library);
  if (builds.empty()) return;
  std::string glibc = tool_glibc(plan), best_floor;
  if (glibc.empty()) return;
  for (const auto& [path, floor] : builds)
    if (edh_version_cmp(floor.c_str(), glibc.c_str()) <= 0 &&
        (best_floor.empty() || edh_version_cmp(floor.c_str(), best_floor.c_str()) > 0) && run::preload_safe(path)) {
      plan.allocator_library = path;
      best_floor = floor;
    }
}

void choose_fallback(Plan& plan) {
  if (plan.allocator_library.empty() || !plan.preflight.inspected || plan.preflight.preload_reaches()) return;
  // The preload would do nothing (or nothing but initialise a second allocator): leave it out
  // and give glibc's malloc, which may be what really runs, the profile's tunables instead.
  plan.fallback_library = plan.allocator_library;
  plan.allocator_library.clear();
  // A sanitizer's malloc is its own, and under an address-space limit the tool runs as it
  // would without edashim: no tunables either.
  auto blocker = plan.preflight.blocker;
  if (blocker == tool::Blocker::sanitizer || blocker == tool::Blocker::address_space_limit ||
      blocker == tool::Blocker::foreign_loader) {
    plan.options_family.clear();
    return;
  }
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

namespace {
// execvp's rule: a tool found on PATH whose exec would fail with ENOENT (a #! naming an
// interpreter that does not exist) is passed over for the next of its name, as Python's
// subprocess, make and env do directly. Where none follows, the first is run, and fails as it would.
void pass_over_missing_interpreters(Plan& plan, const std::vector<std::string>& env, const std::string& path_env) {
  if (plan.resolution.path.empty() || plan.tool_path != plan.resolution.path) return;  // not found on PATH
  auto passed = plan.resolution.passed_over;
  while (plan.preflight.interpreter_missing && passed.size() < 8) {
    passed.push_back(plan.tool_path);
    auto self = tool::SelfIdentity::current(run::lookup(env, kChainVar).value_or("").c_str());
    auto next = tool::resolve(plan.inv.tool, path_env, self, passed);
    if (next.path.empty()) return;
    plan.resolution = next;
    plan.tool_path = next.path;
    plan.preflight = tool::inspect(plan.tool_path, path_env, fact_cache());
  }
}
}  // namespace

void inspect_tool(Plan& plan, const std::vector<std::string>& env) {
  if (!plan.tool_path.empty()) {
    std::string path_env = run::lookup(env, "PATH").value_or("/usr/local/bin:/usr/bin:/bin");
    plan.preflight = tool::inspect(plan.tool_path, path_env, fact_cache());
    pass_over_missing_interpreters(plan, env, path_env);
    if (plan.preflight.inspected) check_loader(plan);
    if (plan.preflight.inspected && plan.preflight.blocker != tool::Blocker::foreign_loader) check_address_space_limit(plan);
    if (plan.preflight.inspected) choose_build_for_glibc(plan);
    choose_fallback(plan);
  }
  check_fallback_options(plan);
}

bool preloads_nothing_of_ours(const tool::Preflight& p) {
  return p.blocker == tool::Blocker::sanitizer || p.blocker == tool::Blocker::foreign_loader || tool::is_static(p.blocker);
}

namespace {
// Where the options that replace the allocator came from.
std::string fallback_source(const Plan& plan) {
  const auto& opts = plan.loaded.settings.options;
  auto it = opts.find(plan.options_family);
  if (it == opts.end() || it->second.empty()) return "";
  return "[" + plan.options_family + "] from " + it->second.begin()->second.origin.file;
}

// What the tunables can do for this tool when they replace the allocator.
std::string fallback_effect(const Plan& plan) {
  const auto& p = plan.preflight;
  switch (p.blocker) {
    case tool::Blocker::static_exe:
    case tool::Blocker::static_pie:
      return p.facts.glibc_static ? "its static glibc reads GLIBC_TUNABLES at start"
                                  : "it is not a static glibc program, so GLIBC_TUNABLES likely does nothing for it";
    // Seen on Debian 12: a setuid-to-nobody static program run by root ignored mmap_threshold.
    case tool::Blocker::secure_exec: return "glibc ignores malloc tunables in secure-execution mode: expect no effect on it";
    case tool::Blocker::sanitizer: return "the sanitizer's runtime serves malloc";
    case tool::Blocker::address_space_limit: return "glibc's malloc serves it, as without edashim";
    case tool::Blocker::foreign_loader: return "it runs as it would without edashim";
    case tool::Blocker::own_malloc:
      return "its own allocator serves malloc: the tunables reach only what still uses glibc's malloc";
    case tool::Blocker::none: break;
  }
  return "";
}
}  // namespace

void describe_fallback(Plan& plan) {
  bool fallback = !plan.fallback_library.empty();
  plan.fallback_source = fallback ? fallback_source(plan) : "";
  plan.fallback_effect = fallback ? fallback_effect(plan) : "";
}

std::string preflight_warning(const Plan& plan) {
  const auto& p = plan.preflight;
  // A limit of this run, not a property of the file: explain and the log say it, quietly.
  if (!p.inspected || p.warned || p.blocker == tool::Blocker::address_space_limit) return "";
  std::string tool = plan.inv.tool;
  if (!plan.fallback_library.empty()) {
    std::string instead = plan.loaded.settings.options.count(plan.options_family)
                              ? "applying glibc malloc tunables (" + plan.fallback_source + ") instead: " + plan.fallback_effect
                              : "running on its own malloc";
    return plan.allocator + " is not preloaded for " + tool + ": " + p.reason + "; " + instead +
           " (said once for this binary; details: edashim explain " + tool + ")";
  }
  if (!p.linked_note.empty()) return "note: " + p.linked_note + " (said once for this binary)";
  return "";
}

void remember_warning_given(const Plan& plan) { tool::mark_warned(plan.preflight, fact_cache()); }

std::string probe_base(const Plan& plan) {
  if (!plan.scratch_base.empty()) return plan.scratch_base;
  if (const char* r = std::getenv("XDG_RUNTIME_DIR"); r && *r == '/' && util::is_directory(r))
    return run::own_base(r, ::getuid());
  return run::own_base("/tmp", ::getuid());  // /tmp is shared like /dev/shm: the same own base
}

}  // namespace pipeline
