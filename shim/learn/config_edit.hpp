#pragma once
// Adding an adopted choice to a user's TOML file (`report --recommend --write FILE`) without
// losing anything they wrote: keys are inserted into the file's text (comments, order and
// formatting stay), a key they already set to something else is never changed (refused, with
// the line), and the result must parse and hold the new values before it is written.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace learn {

struct Edit {
  std::string text;       // the new file content
  bool unchanged = false; // the file already says all of it
  std::string refused;    // non-empty: why the file is left alone (what the user should do)
};

// One key to set: the table's dotted name ("tool.yosys"), the key, its value as TOML text.
struct KeySetting {
  std::string table, key, value;
};

// The settings of `adopt_toml(tool, arm)` as key settings (empty when the arm does not parse).
std::vector<KeySetting> adopt_settings(const std::string& tool, const std::string& arm);

// `existing`: the file's content, nullopt when there is no file. `name` is used in messages.
Edit merge_settings(const std::optional<std::string>& existing, const std::string& name,
                    const std::vector<KeySetting>& settings, const std::string& comment);

}  // namespace learn
