#pragma once
// An allocator option's value as written in a profile, and how it is spelled for the allocator.
// Here rather than in config/: the options tables (alloc/options.hpp) check these values, and
// alloc/ must not depend on config/ (config/settings.hpp aliases them).
#include <cstdint>
#include <string>
#include <variant>

namespace alloc {

// A TOML boolean, integer, float or string.
using OptionValue = std::variant<bool, int64_t, double, std::string>;

// The value as the allocator reads it: booleans as 1/0, or as true/false for jemalloc.
std::string render_option(const OptionValue& value, bool bool_as_word);

// "boolean", "integer", "float" or "string", for messages.
std::string type_name(const OptionValue& value);

}  // namespace alloc
