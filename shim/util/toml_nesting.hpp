#pragma once
// How deep a TOML text nests, found before a recursive parser sees it: toml++'s parser and
// tables recurse per level with no limit, and a key of 300000 dotted parts overflowed the stack.
// Counted outside strings and comments, as TOML reads them (a backslash at a line's end in a
// multi-line basic string continues the string; the line still counts): '.' per line (dotted
// keys, table headers; a float in a value counts one) and the depth of '[' and '{'.
#include <optional>
#include <string>
#include <string_view>

namespace util {

struct TomlNesting {
  int line = 0;      // 1-based
  std::string what;  // "a key of more than N dotted parts", "nested more than N levels deep"
};

std::optional<TomlNesting> toml_too_deep(std::string_view text, int max_depth);

// The same as "line N: what", "" when it nests no deeper than `max_depth`.
std::string toml_nesting_problem(std::string_view text, int max_depth);

}  // namespace util
