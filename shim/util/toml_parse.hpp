#pragma once
// A TOML text as a table, never throwing: the one place toml++'s parser is called, so that every
// caller checks the nesting first (toml_too_deep: toml++ recurses per level) and sees a failure
// the same way, with where it is. The callers word it: a run's config problem, learned.toml's
// broken line, a config file --write will not touch.
#include <string>
#include <string_view>

#ifndef TOML_EXCEPTIONS
#define TOML_EXCEPTIONS 1
#endif
#include <toml++/toml.h>

#include "util/result.hpp"

namespace util {

// Why a text is not a table.
struct TomlProblem {
  enum class Kind {
    too_deep,  // nested deeper than asked (toml_too_deep's words in `what`)
    syntax,    // not TOML (toml++'s description in `what`)
    other,     // the parser stopped for another reason (the exception's words: out of memory)
  };
  Kind kind = Kind::syntax;
  int line = 0, column = 0;  // 1-based; 0 when not known (column: too_deep and other)
  std::string what;
};

// The table, or the problem that stops it, with its place in the file.
using TomlParsed = Result<toml::table, TomlProblem>;

// `text` parsed as TOML, `source` naming it in toml++'s own records (node.source().path), after
// refusing a text nested more than `max_depth` levels (keys' dotted parts, '[' and '{').
TomlParsed parse_toml(std::string_view text, std::string_view source, int max_depth);

}  // namespace util
