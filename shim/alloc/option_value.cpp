#include "alloc/option_value.hpp"

#include <cstdio>

namespace alloc {

std::string render_option(const OptionValue& value, bool bool_as_word) {
  if (auto* b = std::get_if<bool>(&value)) return bool_as_word ? (*b ? "true" : "false") : (*b ? "1" : "0");
  if (auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&value)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", *d);
    return buf;
  }
  return std::get<std::string>(value);
}

std::string type_name(const OptionValue& value) {
  switch (value.index()) {
    case 0: return "boolean";
    case 1: return "integer";
    case 2: return "float";
    default: return "string";
  }
}

}  // namespace alloc
