#include "util/toml_parse.hpp"

#include "util/toml_nesting.hpp"

namespace util {

TomlParsed parse_toml(std::string_view text, std::string_view source, int max_depth) {
  if (auto deep = toml_too_deep(text, max_depth)) return TomlProblem{TomlProblem::Kind::too_deep, deep->line, 0, deep->what};
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return TomlProblem{TomlProblem::Kind::syntax, int(e.source().begin.line), int(e.source().begin.column),
                       std::string(e.description())};
  } catch (const std::exception& e) {
    return TomlProblem{TomlProblem::Kind::other, 0, 0, e.what()};
  }
}

}  // namespace util
