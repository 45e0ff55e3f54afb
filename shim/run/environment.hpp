#pragma once
// Building the tool's environment from the settings: pure, no system calls, so every rule
// here (preload order, no two allocators, MIMALLOC_* first) is unit-tested directly.
#include <optional>
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace run {

struct EnvInputs {
  std::vector<std::string> current;  // the caller's environment, "NAME=value"
  const config::Settings* settings = nullptr;
  std::string allocator_library;     // to preload; empty: none (system, or not found)
  std::string options_family;        // which options table applies: "mimalloc", ..., "glibc", or ""
  std::string probe_library;         // empty: no probe
  std::string scratch_dir;           // empty: TMPDIR untouched
  std::vector<std::pair<std::string, std::string>> markers;  // edashim's own variables
};

struct EnvChange {
  std::string name;
  std::optional<std::string> before;
  std::optional<std::string> after;  // nullopt: removed
};

struct EnvPlan {
  std::vector<std::string> env;  // the tool's environment, in order
  std::vector<EnvChange> changes;
  std::vector<std::string> removed_preloads;  // allocators found in LD_PRELOAD and dropped
};

EnvPlan build_environment(const EnvInputs& in);

// LD_PRELOAD entries (ld.so splits on both ':' and ' ').
std::vector<std::string> split_preload(const std::string& value);

// Reads a variable out of a "NAME=value" list.
std::optional<std::string> lookup(const std::vector<std::string>& env, const std::string& name);

}  // namespace run
