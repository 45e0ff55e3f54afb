#include "learn/config_edit.hpp"

#include <charconv>
#include <cstdlib>
#include <sstream>
#include <variant>

#include "learn/learned.hpp"
#include "util/result.hpp"
#include "util/strings.hpp"
#include "util/toml_parse.hpp"

namespace learn {
namespace {

// A user's config nests a few levels; a file deeper than this is refused before toml++ sees it.
constexpr int kMaxDepth = 64;

// The file parsed, or why not: too deep, or not TOML.
util::Result<toml::table> parse(const std::string& text, const std::string& name) {
  auto parsed = util::parse_toml(text, name, kMaxDepth);
  if (parsed) return std::move(*parsed);
  const auto& p = parsed.failure();
  switch (p.kind) {
    case util::TomlProblem::Kind::too_deep: return util::fail(name + ":" + std::to_string(p.line) + ": " + p.what);
    case util::TomlProblem::Kind::syntax:
      return util::fail(name + ":" + std::to_string(p.line) + ": not valid TOML (" + p.what + ")");
    case util::TomlProblem::Kind::other: break;
  }
  return util::fail(name + ": cannot be read as TOML (" + p.what + ")");
}

std::string render(const toml::table& t) {
  std::ostringstream os;
  // No indentation, no literal or multi-line strings: plain `key = "value"` lines.
  os << toml::toml_formatter{t, toml::format_flags::none};
  std::string s = os.str();
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

void insert_value(toml::table& t, const std::string& key, const alloc::OptionValue& value) {
  std::visit([&](const auto& v) { t.insert_or_assign(key, v); }, value);
}

// "key = value", as toml++ writes it.
std::string key_line(const KeySetting& s) {
  toml::table t;
  insert_value(t, s.key, s.value);
  std::string line = render(t);
  line.pop_back();
  return line;
}

// The table at `path` in `root`: nullptr when a part is missing, and `blocked` when a part is
// there but is not a table (an array of tables, a value).
const toml::table* find_table(const toml::table& root, const std::vector<std::string>& path, bool& blocked) {
  blocked = false;
  const toml::table* t = &root;
  for (const auto& part : path) {
    const toml::node* n = t->get(part);
    if (!n) return nullptr;
    t = n->as_table();
    if (!t) {
      blocked = true;
      return nullptr;
    }
  }
  return t;
}

// The same, creating missing tables; nullptr when a part is not a table.
toml::table* make_table(toml::table& root, const std::vector<std::string>& path) {
  toml::table* t = &root;
  for (const auto& part : path) {
    toml::node* n = t->get(part);
    if (!n) n = &t->insert(part, toml::table{}).first->second;
    t = n->as_table();
    if (!t) return nullptr;
  }
  return t;
}

bool same_value(const toml::node& have, const alloc::OptionValue& want) {
  toml::table a, b;
  a.insert("v", have);
  insert_value(b, "v", want);
  return a == b;
}

// The line index of a standard table header (whitespace and a trailing comment allowed) in
// `lines`, or -1.
long header_line(const std::vector<std::string>& lines, const std::string& header) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    auto hash = l.find('#');
    if (hash != std::string::npos) l.erase(hash);
    std::string compact;
    for (char c : l)
      if (c != ' ' && c != '\t' && c != '\r') compact += c;
    if (compact == header) return long(i);
  }
  return -1;
}

}  // namespace

alloc::OptionValue option_value_of(const std::string& text) {
  if (text == "true" || text == "false") return text == "true";
  // A decimal number as TOML writes one: [+-]digits[.digits], no leading zero.
  auto digit = [&](std::size_t i) { return i < text.size() && text[i] >= '0' && text[i] <= '9'; };
  std::size_t i = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0, start = i;
  while (digit(i)) ++i;
  bool whole = i > start && !(text[start] == '0' && i - start > 1);
  bool fraction = whole && i < text.size() && text[i] == '.';
  if (fraction) {
    std::size_t frac = ++i;
    while (digit(i)) ++i;
    whole = i > frac;
  }
  if (!whole || i != text.size()) return text;
  if (fraction) return std::strtod(text.c_str(), nullptr);
  int64_t n = 0;
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return text;  // past int64: kept as written
  return n;
}

std::string table_name(const std::vector<std::string>& path) {
  std::vector<std::string> parts;
  for (const auto& part : path) {
    toml::table t;
    t.insert(part, 1);
    std::string line = render(t);
    parts.push_back(line.substr(0, line.rfind(" = 1")));
  }
  return util::join(parts, ".");
}

std::vector<KeySetting> adopt_settings(const std::string& tool, const std::string& arm) {
  if (!is_tool_name(tool) || !arm_problem(arm).empty()) return {};
  auto parts = parse_arm(arm);
  std::vector<KeySetting> out{{{"tool", tool}, "allocator", parts->allocator}};
  std::string family = parts->allocator == "system" ? "glibc" : parts->allocator;
  for (const auto& [name, value] : parts->options) out.push_back({{"tool", tool, family}, name, option_value_of(value)});
  return out;
}

std::string render_settings(const std::vector<KeySetting>& settings) {
  toml::table root;
  for (const auto& s : settings)
    if (auto* t = make_table(root, s.table)) insert_value(*t, s.key, s.value);
  return root.empty() ? "" : render(root);
}

std::string adopt_toml(const std::string& tool, const std::string& arm) {
  return render_settings(adopt_settings(tool, arm));
}

std::string check_merge(const std::string& old_text, const std::string& new_text, const std::string& name,
                        const std::vector<KeySetting>& settings) {
  auto expected = parse(old_text, name);
  if (!expected) return expected.error();
  auto merged = parse(new_text, name);
  if (!merged) return "the merged file would not be read: " + merged.error();
  for (const auto& s : settings) {
    auto* t = make_table(*expected, s.table);
    if (!t) return name + ": " + table_name(s.table) + " is not a table";
    insert_value(*t, s.key, s.value);
  }
  if (!(*expected == *merged)) return name + ": the merged file would differ from yours by more than the settings added";
  return "";
}

Edit merge_settings(const std::optional<std::string>& existing, const std::string& name,
                    const std::vector<KeySetting>& settings, const std::string& comment) {
  Edit e;
  const std::string old_text = existing.value_or("");
  auto root = parse(old_text, name);
  if (!root) {
    e.refused = root.error() + "; fix it or write to another file";
    return e;
  }
  std::vector<KeySetting> todo;
  for (const auto& s : settings) {
    bool blocked = false;
    const toml::table* t = find_table(*root, s.table, blocked);
    if (blocked) {
      e.refused = name + ": " + table_name(s.table) + " is not a table there, where edashim cannot add " + s.key +
                  "; add " + key_line(s) + " to [" + table_name(s.table) + "] yourself";
      return e;
    }
    if (const toml::node* have = t ? t->get(s.key) : nullptr) {
      if (same_value(*have, s.value)) continue;
      e.refused = name + ":" + std::to_string(have->source().begin.line) + ": [" + table_name(s.table) + "] already sets " +
                  s.key + " to something else; edashim does not change what you wrote: set " + key_line(s) +
                  " there yourself, or write to another file";
      return e;
    }
    todo.push_back(s);
  }
  if (todo.empty()) {
    e.unchanged = true;
    e.text = old_text;
    return e;
  }
  // Keys of a table the file has go under its header; new tables are appended, in one block.
  auto lines = util::split(old_text, '\n');
  toml::table appended;
  for (const auto& s : todo) {
    bool blocked = false;
    if (!find_table(*root, s.table, blocked)) {
      insert_value(*make_table(appended, s.table), s.key, s.value);
      continue;
    }
    const std::string table = table_name(s.table);  // an lvalue: gcc 12 warns (-Wrestrict) on "[" + temporary
    long at = header_line(lines, "[" + table + "]");
    if (at < 0) {
      e.refused = name + ": [" + table + "] is written inline or with dotted keys, where edashim cannot add " +
                  s.key + " safely; add " + key_line(s) + " to it yourself";
      return e;
    }
    lines.insert(lines.begin() + at + 1, key_line(s));
  }
  std::string text = util::join(lines, "\n");
  if (!appended.empty()) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    if (!text.empty()) text += '\n';
    if (!comment.empty()) text += "# " + util::printable(comment) + "\n";
    text += render(appended);
  }
  // Parsed, the result must be the file as it was plus exactly these keys, or nothing is written.
  if (auto bad = check_merge(old_text, text, name, todo); !bad.empty()) {
    e.refused = bad + "; nothing written: add the settings yourself";
    return e;
  }
  e.text = text;
  return e;
}

}  // namespace learn
