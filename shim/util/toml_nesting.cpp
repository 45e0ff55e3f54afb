#include "util/toml_nesting.hpp"

namespace util {

std::optional<TomlNesting> toml_too_deep(std::string_view text, int max_depth) {
  enum class In { code, comment, basic, literal, ml_basic, ml_literal } in = In::code;
  int line = 1, dots = 0, depth = 0;
  auto at = [&](std::size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      dots = 0;
      if (in == In::comment || in == In::basic || in == In::literal) in = In::code;
      continue;
    }
    switch (in) {
      case In::comment: break;
      case In::basic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
        else if (c == '"') in = In::code;
        break;
      case In::literal:
        if (c == '\'') in = In::code;
        break;
      case In::ml_basic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') ++i;
        else if (at(i, "\"\"\"")) in = In::code, i += 2;
        break;
      case In::ml_literal:
        if (at(i, "'''")) in = In::code, i += 2;
        break;
      case In::code:
        if (c == '#') in = In::comment;
        else if (at(i, "\"\"\"")) in = In::ml_basic, i += 2;
        else if (at(i, "'''")) in = In::ml_literal, i += 2;
        else if (c == '"') in = In::basic;
        else if (c == '\'') in = In::literal;
        else if (c == '.' && ++dots > max_depth)
          return TomlNesting{line, "a key of more than " + std::to_string(max_depth) + " dotted parts"};
        else if ((c == '[' || c == '{') && ++depth > max_depth)
          return TomlNesting{line, "nested more than " + std::to_string(max_depth) + " levels deep"};
        else if (c == ']' || c == '}') --depth;
        break;
    }
  }
  return std::nullopt;
}

std::string toml_nesting_problem(std::string_view text, int max_depth) {
  auto deep = toml_too_deep(text, max_depth);
  return deep ? "line " + std::to_string(deep->line) + ": " + deep->what : "";
}

}  // namespace util
