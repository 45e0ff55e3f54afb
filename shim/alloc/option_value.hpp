#pragma once
// An allocator option's value as a profile writes it. It lives here, not in config/, because the
// allocators own what their options mean; config/ only reads them from TOML (and aliases the type).
#include <cstdint>
#include <string>
#include <variant>

namespace alloc {

using OptionValue = std::variant<bool, int64_t, double, std::string>;

// The value as it goes into an allocator's environment variable: jemalloc's MALLOC_CONF spells
// booleans as words, the others as 1/0.
std::string render_option(const OptionValue& value, bool bool_as_word);
// The value a text stands for, as render_option writes it back ("true", "4", "0.5", "64M"):
// for options kept as text (learned.toml's arms).
OptionValue option_from_text(const std::string& text);
// "boolean", "integer", "float" or "string", for messages.
std::string type_name(const OptionValue& value);

}  // namespace alloc
