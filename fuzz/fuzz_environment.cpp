// Fuzzes the environment builder (run::build_environment) with arbitrary settings and caller
// environments, and checks what must hold whatever the input: a variable the caller set keeps
// the caller's value, every other variable the settings set appears exactly once with its value,
// and the allocator is in the LD_PRELOAD ld.so reads.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "pipeline/plan.hpp"
#include "run/environment.hpp"
#include "util/strings.hpp"

namespace {

std::string name(FuzzedDataProvider& p) {
  static const char* common[] = {"LD_PRELOAD", "TMPDIR", "LC_ALL", "MALLOC_CONF", "GLIBC_TUNABLES",
                                 "MIMALLOC_VERBOSE", "TCMALLOC_X", "PATH", "TMP", "TEMP", "__EDASHIM_CHAIN"};
  if (p.ConsumeBool()) return common[p.ConsumeIntegralInRange<size_t>(0, std::size(common) - 1)];
  return p.ConsumeRandomLengthString(24);
}

// A variable name as config::load lets it through: non-empty, no '=' or NUL, not edashim's own.
bool valid(const std::string& n) {
  return !n.empty() && n.find('=') == std::string::npos && n.find('\0') == std::string::npos && !n.starts_with("__EDASHIM_");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  config::Settings s;
  run::EnvInputs in;
  for (int i = p.ConsumeIntegralInRange(0, 12); i > 0; --i) {
    std::string n = name(p);
    in.current.push_back(p.ConsumeBool() ? n + "=" + p.ConsumeRandomLengthString(40) : p.ConsumeRandomLengthString(40));
  }
  static const char* families[] = {"mimalloc", "jemalloc", "tcmalloc", "tbbmalloc", "glibc", "", "other"};
  in.options_family = families[p.ConsumeIntegralInRange<size_t>(0, std::size(families) - 1)];
  for (int i = p.ConsumeIntegralInRange(0, 6); i > 0; --i) {
    std::string family = families[p.ConsumeIntegralInRange<size_t>(0, 4)];
    std::string key = util::to_lower(p.ConsumeRandomLengthString(16));  // load() lower-cases option names
    alloc::OptionValue v;
    switch (p.ConsumeIntegralInRange(0, 3)) {
      case 0: v = p.ConsumeBool(); break;
      case 1: v = p.ConsumeIntegral<int64_t>(); break;
      case 2: v = p.ConsumeFloatingPoint<double>(); break;
      default: v = p.ConsumeRandomLengthString(20);
    }
    s.options[family][key].set(v, {"fuzz"});
  }
  for (int i = p.ConsumeIntegralInRange(0, 6); i > 0; --i) {
    std::string n = name(p);
    if (!valid(n)) continue;
    if (p.ConsumeBool()) s.env[n].set(p.ConsumeRandomLengthString(30), {"fuzz"});
    else s.env[n].set(std::nullopt, {"fuzz"});
  }
  if (p.ConsumeBool()) s.locale.set(p.ConsumeRandomLengthString(10), {"fuzz"});
  if (p.ConsumeBool()) in.allocator_library = "/usr/lib/x86_64-linux-gnu/" + p.ConsumeRandomLengthString(20);
  if (p.ConsumeBool()) in.probe_library = "/opt/libedashim_probe.so";
  if (p.ConsumeBool()) in.scratch_dir = "/dev/shm/edashim-0-1-" + p.ConsumeRandomLengthString(6);
  pipeline::environment_settings(s, in);
  auto plan = run::build_environment(in);

  auto count = [&](const std::string& n) {
    size_t c = 0;
    for (const auto& e : plan.env)
      if (e.size() > n.size() && e[n.size()] == '=' && e.compare(0, n.size(), n) == 0) ++c;
    return c;
  };
  for (const auto& [n, v] : s.env) {
    if (n == "LD_PRELOAD") continue;  // combined with the preloads below
    // scratch = true moves these whoever set them: that is what it is for.
    if (!in.scratch_dir.empty() && (n == "TMPDIR" || n == "TMP" || n == "TEMP")) continue;
    bool in_current = false;
    for (const auto& e : in.current) in_current |= e == n || e.rfind(n + "=", 0) == 0;
    auto yours = run::lookup(in.current, n);
    if (yours && !yours->empty()) {
      // What the caller set reaches the tool as they set it (issue 13).
      if (run::lookup(plan.env, n) != yours) std::abort();
    } else if (v.value) {
      if (count(n) != 1 || run::lookup(plan.env, n) != v.value) std::abort();
    } else if (count(n) != 0 && !in_current) {
      std::abort();  // an unset variable that was not there must not appear
    }
  }
  if (!in.allocator_library.empty() && in.allocator_library.find_first_of(": ") == std::string::npos &&
      !s.env.count("LD_PRELOAD")) {
    // The allocator is in the LD_PRELOAD ld.so reads, after whatever the caller had there.
    auto entries = run::split_preload(run::effective_preload(plan.env).value_or(""));
    if (std::find(entries.begin(), entries.end(), in.allocator_library) == entries.end()) std::abort();
  }
  return 0;
}
