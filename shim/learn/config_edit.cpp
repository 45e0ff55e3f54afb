#include "learn/config_edit.hpp"

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include <map>
#include <sstream>

#include "learn/recommend.hpp"
#include "util/strings.hpp"

namespace learn {
namespace {

// A value's TOML text normalised by toml++ (so 4 and +4, "a" and 'a' compare equal).
std::optional<std::string> normalised(const toml::node& n) {
  toml::table t;
  t.insert("v", n);
  std::ostringstream os;
  os << t;
  return os.str();
}
std::optional<std::string> normalised(const std::string& value_text) {
  try {
    auto t = toml::parse("v = " + value_text);
    return normalised(*t.get("v"));
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

// The line index of a standard table header "[a.b]" in `lines` (whitespace and a trailing
// comment allowed), or -1.
long header_line(const std::vector<std::string>& lines, const std::string& table) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    auto hash = l.find('#');
    if (hash != std::string::npos) l.erase(hash);
    std::string compact;
    for (char c : l)
      if (c != ' ' && c != '\t' && c != '\r') compact += c;
    if (compact == "[" + table + "]") return long(i);
  }
  return -1;
}

}  // namespace

std::vector<KeySetting> adopt_settings(const std::string& tool, const std::string& arm) {
  auto parts = parse_arm(arm);
  if (!parts) return {};
  std::vector<KeySetting> out{{"tool." + tool, "allocator", "\"" + parts->allocator + "\""}};
  std::string family = parts->allocator == "system" ? "glibc" : parts->allocator;
  for (const auto& [name, value] : parts->options) out.push_back({"tool." + tool + "." + family, name, toml_value(value)});
  return out;
}

Edit merge_settings(const std::optional<std::string>& existing, const std::string& name,
                    const std::vector<KeySetting>& settings, const std::string& comment) {
  Edit e;
  std::string text = existing.value_or("");
  std::vector<std::string> appended_tables;  // tables added at the end, in order
  std::map<std::string, std::vector<std::string>> appended;
  bool changed = false;
  for (const auto& s : settings) {
    toml::table root;
    try {
      root = toml::parse(text, name);
    } catch (const toml::parse_error& err) {
      e.refused = name + ":" + std::to_string(err.source().begin.line) + ": not valid TOML (" +
                  std::string(err.description()) + "); fix it or write to another file";
      return e;
    }
    auto want = normalised(s.value);
    if (!want) {
      e.refused = "internal: cannot render " + s.key + " = " + s.value;
      return e;
    }
    toml::node_view<toml::node> node = root.at_path(s.table + "." + s.key);
    if (node) {
      if (normalised(*node.node()) == want) continue;
      e.refused = name + ":" + std::to_string(node.node()->source().begin.line) + ": [" + s.table + "] already sets " + s.key +
                  " to something else; edashim does not change what you wrote: set " + s.key + " = " + s.value +
                  " there yourself, or write to another file";
      return e;
    }
    changed = true;
    if (auto table = root.at_path(s.table)) {
      auto lines = util::split(text, '\n');
      long at = header_line(lines, s.table);
      if (!table.is_table() || at < 0) {
        e.refused = name + ": [" + s.table + "] is written inline or with dotted keys, where edashim cannot add " + s.key +
                    " safely; add " + s.key + " = " + s.value + " to it yourself";
        return e;
      }
      lines.insert(lines.begin() + at + 1, s.key + " = " + s.value);
      text = util::join(lines, "\n");
    } else if (appended.count(s.table)) {
      appended[s.table].push_back(s.key + " = " + s.value);
    } else {
      appended_tables.push_back(s.table);
      appended[s.table].push_back(s.key + " = " + s.value);
    }
  }
  if (!appended_tables.empty()) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    if (!text.empty()) text += '\n';
    if (!comment.empty()) text += "# " + comment + "\n";
    for (const auto& t : appended_tables) {
      text += "[" + t + "]\n";
      for (const auto& line : appended[t]) text += line + "\n";
    }
  }
  if (!changed) {
    e.unchanged = true;
    e.text = text;
    return e;
  }
  // The merged text must parse and say what was asked, or nothing is written.
  try {
    auto root = toml::parse(text, name);
    for (const auto& s : settings) {
      auto node = root.at_path(s.table + "." + s.key);
      if (!node || normalised(*node.node()) != normalised(s.value)) {
        e.refused = name + ": adding [" + s.table + "] " + s.key + " would not take effect in this file; add it yourself";
        return e;
      }
    }
  } catch (const toml::parse_error& err) {
    e.refused = name + ": adding the settings would make the file invalid TOML (" + std::string(err.description()) +
                "); add them yourself";
    return e;
  }
  e.text = text;
  return e;
}

}  // namespace learn
