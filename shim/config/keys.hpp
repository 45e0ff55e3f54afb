#pragma once
// The one table of configuration keys: how each value is read and applied, and what an
// untrusted project file may set of it. Applying a file, ignoring what an untrusted file may not
// set, and the loader's pre-scan (is there anything for the trust store to decide?) all derive
// from it. An untrusted project file may set only what the table allows (an allow-list):
// allocator by name, locale, scratch on/off and allocator options within their safe ranges.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#ifndef TOML_EXCEPTIONS
#define TOML_EXCEPTIONS 1
#endif
#include <toml++/toml.h>

#include "config/settings.hpp"

namespace config {

// A profile name written in explore_profiles, checked once every file has been read (a
// [profile.X] section in a later file may define it).
struct ProfileMention {
  std::string file;
  int line = 0, column = 0;
  std::string name;
};

// One config file being applied.
struct FileContext {
  std::string path;
  FileKind kind = FileKind::shipped;
  bool trusted = false;    // untrusted unless the loader knows better: a project file not in the trust store
  std::vector<Problem>* problems = nullptr;
  std::vector<std::string> ignored;  // what an untrusted file set that was ignored: "key (why; line N)"
  std::vector<ProfileMention>* mentions = nullptr;
  // Whose named profile `name` already is ("edashim's shipped", "your"), or "" when none: an
  // untrusted file may not redefine it.
  std::function<std::string(const std::string& name)> profile_owner;
  std::string own_files;   // the user's and the system's config files, for shared_dirs' message
};

// How a key's value is read and applied.
using ApplyFn = void (*)(FileContext& f, const std::string& key, const toml::node& value, Settings& s, bool in_tool);

// One key of the table.
struct KeySpec {
  const char* name;
  ApplyFn apply;
  // Why an untrusted project file may not set this key at all; nullptr: it may (see `untrusted_value`).
  const char* untrusted_why;
  // For a key an untrusted file may set: why it may not set this value, or nullopt. nullptr: any valid value.
  std::optional<std::string> (*untrusted_value)(const toml::node& value) = nullptr;
  // Read only from the user's and the system's own config (shared_dirs), never from a project
  // file, trusted or not, nor a profile.
  bool own_config_only = false;
};

// Every key a config file may hold at the top level of a file or a [tool.X] / [profile.X] section.
const std::vector<KeySpec>& key_table();
const KeySpec* find_key(const std::string& name);

// One part of a file an untrusted project file may not set: a key, one option of an allocator's
// table, or a [profile.X] section redefining a named profile.
struct Refusal {
  std::string what;  // "log", "[glibc] top_pad", "[profile.baseline]"
  std::string why;
  const toml::node* node = nullptr;
};

// What of `key = value` an untrusted project file may not set (none: nothing).
std::vector<Refusal> untrusted_refusals(const std::string& key, const toml::node& value);

// Whether an untrusted file would have anything of `root` ignored (its top level, [tool.X] and
// [profile.X] sections): only then is the trust store worth reading (hashing the file).
bool needs_trust(const FileContext& f, const toml::table& root);

// Why an untrusted `f` may not define [profile.name], or "".
std::string profile_refusal(const FileContext& f, const std::string& name);

// Applies the plain keys of one table (a file's root, a [tool.X] or a [profile.X] section).
void apply_table(FileContext& f, const toml::table& t, Settings& s, bool in_tool);
// Applies the [tool.<tool>] section of a file's root.
void apply_tool_section(FileContext& f, const toml::table& root, const std::string& tool, Settings& s);

// Records that `what` was ignored from an untrusted file, and why.
void ignore(FileContext& f, const std::string& what, const std::string& why, const toml::node& at);

void report(const FileContext& f, const toml::node& n, std::string message, bool error = true);

// An allocator option's name: letters, digits and '_'.
bool valid_option_name(const std::string& name);

}  // namespace config
