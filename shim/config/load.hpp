#pragma once
// Finds the config files that apply to a run and merges them into Settings, lowest priority
// first: shipped defaults, /etc, the user's file, each .edashim.toml from / down to the cwd,
// the selected named profile, then environment variables.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/settings.hpp"
#include "config/trust.hpp"
#include "learn/learned.hpp"

namespace util {
class FactCache;
}

namespace config {

// A profile and an allocator asked for outside the files (flag or environment variable), with
// where each came from ("--profile", "EDASHIM_PROFILE"), for messages. Empty: none asked for.
struct Selection {
  std::string profile;              // name or path
  std::string profile_origin;
  std::string allocator;
  std::string allocator_origin;
};

struct LoadRequest {
  std::string tool;                 // name the tool was invoked as ("yosys"); empty for none
  std::string cwd;                  // absolute
  std::string shipped_dir;          // <prefix>/share/edashim/profiles
  std::string system_file;          // /etc/edashim/config.toml
  std::string user_file;            // $XDG_CONFIG_HOME/edashim/config.toml
  std::string user_profiles_dir;    // $XDG_CONFIG_HOME/edashim/profiles
  Selection chosen;                 // a named profile and an allocator override
  std::string log;                  // EDASHIM_LOG; empty: none
  std::string learned_file;         // $XDG_STATE_HOME/edashim/learned.toml; empty: no learned layer
  std::string cpu_model;            // this machine's CPU model; empty: util::cpu_model(facts) when needed
  util::FactCache* facts = nullptr; // where the CPU model is remembered across runs (may be null)
  const TrustStore* trust = nullptr;
  const TrustStore* ignore = nullptr;  // the project files the user chose not to use (trust --ignore)
};

// The learned choice for this tool on this CPU model, when adopt is on and one exists.
struct LearnedLayer {
  learn::Learned entry;
  std::string file;
  bool applied = false;
  std::string note;  // why it is not applied (the tool binary changed, ...)
  // What the layers below had, for undoing it when the tool turns out not to be the binary it
  // was learned on (pipeline/plan.cpp knows the tool only after loading).
  Setting<std::string> allocator_before;
  std::string family;
  std::map<std::string, Setting<OptionValue>> options_before;
};

struct Loaded {
  Settings settings;
  std::vector<ConsideredFile> files;
  std::vector<Problem> problems;
  std::vector<std::string> untrusted_files;  // project files whose restricted keys were ignored
  std::map<std::string, std::vector<std::string>> ignored;  // untrusted file -> what of it was ignored
  // Project files applied as untrusted: a mistake of theirs ignores only what it is about (a
  // warning ending in kUntrustedMistake), never the user's own settings.
  std::vector<std::string> not_trusted;
  // Project files the user chose never to use, as they are now (`edashim trust --ignore`):
  // skipped without a word on a run; explain and doctor say so, and how to undo it.
  std::vector<std::string> ignored_by_choice;
  bool is_untrusted(const std::string& file) const;
  std::optional<LearnedLayer> learned;
  bool out_of_descriptors = false;  // a file that exists could not be opened: no descriptor left (EMFILE)
  bool has_errors() const;
};

// Ends the warning of an untrusted project file's mistake.
inline constexpr const char* kUntrustedMistake = " (ignored: this file is not trusted; the rest of your settings apply)";

Loaded load(const LoadRequest& request);

// The .edashim.toml candidates for `cwd`, root first; the walk stops at a filesystem boundary
// or at a directory owned by someone other than the user or root.
std::vector<std::string> project_files(const std::string& cwd, std::string* stopped_because = nullptr);

// Undoes an applied learned layer (the tool is not the binary it was learned on), saying why.
void drop_learned(Loaded& loaded, const std::string& why);

// Settings keys, for messages and completion.
const std::vector<std::string>& layer_keys();

}  // namespace config
