#pragma once
// Building the tool's environment from the settings: pure, no system calls, so every rule
// here (the user's variables win, preload order, MIMALLOC_* first) is unit-tested directly.
//
// The rule: a variable the caller set (to a non-empty value) reaches the tool as the caller set
// it, whatever any config file says; edashim only adds variables the caller did not set, and
// appends its libraries to the caller's LD_PRELOAD, never ahead of them.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloc/option_value.hpp"

namespace run {

// Plain inputs: what the settings ask for comes already chosen (pipeline/plan.cpp,
// environment_settings), so the rules here need no configuration to be tested.
struct EnvInputs {
  std::vector<std::string> current;  // the caller's environment, "NAME=value"
  std::string allocator_library;     // to preload; empty: none (system, or not found)
  std::string options_family;        // how `options` are written: "mimalloc", ..., "glibc", or "" (none)
  std::vector<std::pair<std::string, alloc::OptionValue>> options;  // that family's options, by name
  std::string locale;                // LC_ALL for the tool; empty: the caller's locale kept
  std::vector<std::pair<std::string, std::optional<std::string>>> env;  // [env]: nullopt unsets
  std::string probe_library;         // empty: no probe
  std::string hook_library;          // the exec hook (probe/hook.c): preloaded whenever anything else is
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
  // Variables the caller set that a config file would have changed: kept as the caller set them.
  struct Kept {
    std::string name, yours;
    std::optional<std::string> profile;  // nullopt: the profile would have unset it
  };
  std::vector<Kept> kept;
};

EnvPlan build_environment(const EnvInputs& in);

// The LD_PRELOAD ld.so uses: the last LD_PRELOAD= entry of a raw environment (getenv and
// lookup() give the first).
std::optional<std::string> effective_preload(const std::vector<std::string>& env);

// The entry of the caller's LD_PRELOAD that chooses the allocator (a known allocator library, or
// a sanitizer runtime that serves malloc), or "". Then edashim adds no allocator of its own.
std::string preloaded_allocator(const std::vector<std::string>& env);

// The variables through which edashim tells the exec hook (probe/hook.c) and the runs below what
// is its own: the LD_PRELOAD entries it added, and the variables it gave a value that the caller
// had not set (or had set empty), each with a fingerprint of that value (SetEntry).
inline constexpr const char* kOursVar = "__EDASHIM_OURS";
inline constexpr const char* kSetVar = "__EDASHIM_SET";
// The run's scratch directory, set with TMPDIR: each process of the run whose TMPDIR is still that
// directory holds it (probe/probe.c takes a shared lock), so that it outlives none of them.
inline constexpr const char* kScratchVar = "__EDASHIM_SCRATCH";

// One variable of kSetVar: written "NAME=<fingerprint>", or "NAME==<fingerprint>" when the caller
// had it set empty; entries joined by ':'. A name may hold ':' (only '=' ends it) and the
// fingerprint has a fixed width, so every entry reads back whatever the names are.
struct SetEntry {
  std::string name;
  std::string fingerprint;  // value_fingerprint of the value edashim set
  bool was_empty = false;   // the caller had it set to "": emptied again, not removed
  bool operator==(const SetEntry&) const = default;
};
// 16 hex digits (FNV-1a, 64 bits) of `value`: a fixed width, so the environment's size does not
// depend on the values (bench keeps it equal across arms).
std::string value_fingerprint(const std::string& value);
std::string encode_set_entries(const std::vector<SetEntry>& entries);
// The entries of a kSetVar value, up to the first that is not well formed (a value set by hand,
// or by an older edashim above, which wrote names only): those after it are not edashim's to drop.
std::vector<SetEntry> decode_set_entries(const std::string& text);

// The environment the caller of this run gave it, as far as the run above's bookkeeping tells: a
// variable that run set is taken out (or emptied again) only while it still has the value the run
// set; one the caller changed for this tool (`OMP_NUM_THREADS=8 yosys` in a recipe, Python's
// env=) is theirs, as it is through the link. The run above's LD_PRELOAD entries go where they
// still stand as it appended them (all of them, in order, side by side), and so do its own
// markers (probe file, route, scratch). A tool routed to its own profile starts from this.
std::vector<std::string> without_inherited(const std::vector<std::string>& env);

// LD_PRELOAD entries (ld.so splits on both ':' and ' ').
std::vector<std::string> split_preload(const std::string& value);

// Whether `path` can be one LD_PRELOAD entry: ld.so splits the list at ' ' and ':', so a path
// holding either reaches it as pieces it cannot open, and every process of the run prints an
// "ERROR: ld.so" line. Such a library is left out; the run goes on without it.
bool preload_safe(const std::string& path);

// Reads a variable out of a "NAME=value" list.
std::optional<std::string> lookup(const std::vector<std::string>& env, const std::string& name);

}  // namespace run
