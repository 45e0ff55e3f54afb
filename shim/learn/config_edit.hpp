#pragma once
// Adding an adopted choice to a user's TOML file (`report --recommend --write FILE`) without
// losing anything they wrote: keys are inserted into the file's text (comments, order and
// formatting stay), a key they already set to something else is never changed (refused, with
// the line). What is added is rendered by toml++, never pasted together by hand (an arm read
// from a log once closed a quoted string and added `path = ...`), and the result is written
// only when, parsed, it equals the file as it was plus exactly the keys asked for.
#include <optional>
#include <string>
#include <vector>

#include "alloc/option_value.hpp"

namespace learn {

struct Edit {
  std::string text;       // the new file content
  bool unchanged = false; // the file already says all of it
  std::string refused;    // non-empty: why the file is left alone (what the user should do)
};

// One key to set: the path of its table ({"tool", "yosys"}), the key, its value.
struct KeySetting {
  std::vector<std::string> table;
  std::string key;
  alloc::OptionValue value;
};

// An arm's option text as the TOML value it stands for: "true"/"false" a boolean, a decimal
// number as TOML writes one ("4", "-1", "0.5") a number, anything else a string ("007", "64M").
alloc::OptionValue option_value_of(const std::string& text);

// A table's path as a TOML header names it: "tool.yosys", parts quoted where TOML needs it.
std::string table_name(const std::vector<std::string>& path);

// The settings that make `tool` use `arm`: [tool.NAME] allocator, and [tool.NAME.FAMILY] for its
// options. Empty when the tool name or the arm is not one edashim takes from a log
// (is_tool_name, arm_problem).
std::vector<KeySetting> adopt_settings(const std::string& tool, const std::string& arm);

// The settings as a TOML document (toml++'s serialiser), "" for none.
std::string render_settings(const std::vector<KeySetting>& settings);

// The TOML that makes `tool` use `arm`, for printing: render_settings(adopt_settings(...)).
std::string adopt_toml(const std::string& tool, const std::string& arm);

// "" when `new_text`, parsed, equals `old_text` parsed plus exactly `settings` (nothing else
// added, changed or lost); else why not. `name` is used in messages.
std::string check_merge(const std::string& old_text, const std::string& new_text, const std::string& name,
                        const std::vector<KeySetting>& settings);

// `existing`: the file's content, nullopt when there is no file. `name` is used in messages.
Edit merge_settings(const std::optional<std::string>& existing, const std::string& name,
                    const std::vector<KeySetting>& settings, const std::string& comment);

}  // namespace learn
