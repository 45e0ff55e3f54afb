#pragma once
// Finds the config files that apply to a run and merges them into Settings, lowest priority
// first: shipped defaults, /etc, the user's file, each .edashim.toml from / down to the cwd,
// the selected named profile, then environment variables.
#include <sys/stat.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/settings.hpp"
#include "config/trust.hpp"
#include "util/result.hpp"

namespace config {

// A profile and an allocator asked for outside the files (flag or environment variable), with
// where each came from ("--profile", "EDASHIM_PROFILE"), for messages. Empty: none asked for.
struct Selection {
  std::string profile;              // name or path
  std::string profile_origin;
  std::string allocator;
  std::string allocator_origin;
};

// The learned choice for a tool on this CPU model, as plain data: learned.toml's format is
// learn/'s alone, and the caller reads it (pipeline/learned_layer.cpp).
struct LearnedChoice {
  int line = 0;                     // where its [[choice]] starts in learned.toml (origin for explain)
  std::string allocator;            // a known allocator's name (learn::arm_problem checked it)
  std::vector<std::pair<std::string, std::string>> options;  // name, value as written
  std::string binary;               // the tool binary it was learned on (canonical path)
  std::string summary;              // what was learned and from what evidence (learn::describe)
  std::string date;                 // when (ISO 8601 UTC)
  std::string unusable;             // why it is not applied ("ignored: ... changed ..."); "": it is
};

// What learned.toml holds for the tool: nullopt when nothing is learned for it on this CPU model;
// an error when the file cannot be used (said as a warning; no learned choice is used).
using LearnedRead = util::Result<std::optional<LearnedChoice>>;

struct LoadRequest {
  std::string tool;                 // name the tool was invoked as ("yosys"); empty for none
  std::string cwd;                  // absolute
  std::string shipped_dir;          // <prefix>/share/edashim/profiles
  std::string system_file;          // /etc/edashim/config.toml
  std::string user_file;            // $XDG_CONFIG_HOME/edashim/config.toml
  std::string user_profiles_dir;    // $XDG_CONFIG_HOME/edashim/profiles
  Selection chosen;                 // a named profile and an allocator override
  std::string log;                  // EDASHIM_LOG; empty: none
  std::string supervise;            // EDASHIM_SUPERVISE; empty: none
  std::string learned_file;         // $XDG_STATE_HOME/edashim/learned.toml, where its warnings point
  // Reads the learned layer; asked only once the files below the learned layer turn adopt on (a
  // run with adopt off never reads learned.toml). Empty: no learned layer.
  std::function<LearnedRead()> read_learned;
  const TrustStore* trust = nullptr;
  const TrustStore* ignore = nullptr;  // the project files the user chose not to use (trust --ignore)
};

// The learned choice for this tool on this CPU model, when adopt is on and one exists.
struct LearnedLayer {
  LearnedChoice choice;
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

// Why a config file's text is not TOML, as a run would report it (its line and column);
// nullopt when it parses. What the file's keys say is not looked at.
std::optional<Problem> syntax_problem(const std::string& path, const std::string& content);

// The .edashim.toml candidates for `cwd`, root first; the walk stops at a filesystem boundary
// or at a directory owned by someone other than the user or root.
std::vector<std::string> project_files(const std::string& cwd, std::string* stopped_because = nullptr);

// Another user's project file in a directory that is not the user's (owned by someone else, or
// shared like sticky /tmp, /var/tmp and /dev/shm): anyone there can leave one, so it is ignored
// without a word on runs (every run below /tmp would otherwise carry another user's line);
// explain and doctor list it with this note. Not root's files: root can change anything anyway.
bool foreign_in_foreign_dir(const struct stat& file, const struct stat& dir, uid_t me);
// The note for `path` when foreign_in_foreign_dir holds, else empty.
std::string foreign_file_note(const std::string& path, uid_t me);

// Undoes an applied learned layer (the tool is not the binary it was learned on), saying why.
void drop_learned(Loaded& loaded, const std::string& why);

// Settings keys, for messages and completion.
const std::vector<std::string>& layer_keys();

}  // namespace config
