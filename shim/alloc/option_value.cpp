#include "alloc/option_value.hpp"

#include <cstdio>
#include <cstdlib>

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

OptionValue option_from_text(const std::string& text) {
  if (text == "true" || text == "false") return OptionValue(text == "true");
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && end && *end == 0) return OptionValue(int64_t(i));
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && end && *end == 0) return OptionValue(d);
  return OptionValue(text);
}

}  // namespace alloc
