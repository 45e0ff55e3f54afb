#include "config/load.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "alloc/allocators.hpp"
#include "config/config_file.hpp"
#include "config/log_path.hpp"
#include "learn/learned.hpp"
#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "util/machine.hpp"
#include "util/strings.hpp"

namespace config {

bool Loaded::has_errors() const {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.error; });
}

const std::vector<std::string>& layer_keys() {
  static const std::vector<std::string> keys = {
      "allocator", "locale", "scratch", "keep_scratch", "scratch_min_free_mb", "scratch_min_free_percent", "probe", "log", "path",
      "env", "tool", "profile", "log_max_mb", "log_keep", "library_dirs", "explore", "explore_profiles", "adopt", "adopt_requires_bench", "mimalloc", "jemalloc", "tcmalloc", "tbbmalloc", "glibc", "glibc_fallback"};
  return keys;
}

namespace {

// Keys that could run code or write files of a project author's choosing. In an untrusted
// project file they are ignored (with a word on stderr) until `edashim trust`.
bool is_restricted(const std::string& key, const toml::node& value) {
  if (key == "env" || key == "path" || key == "log") return true;
  // A cloned project must not be able to shrink the user's run history away either.
  if (key == "log_max_mb" || key == "log_keep") return true;
  // Where allocator libraries are looked for chooses what is preloaded, like a library path.
  if (key == "library_dirs") return true;
  // Turning the user's runs into experiments, or adopting what they taught, is the user's call.
  if (key == "explore" || key == "explore_profiles" || key == "adopt" || key == "adopt_requires_bench") return true;
  if (key == "allocator") {
    auto s = value.value<std::string>();
    return s && s->find('/') != std::string::npos;
  }
  // A TMPDIR the user set holds what they chose to keep: only they may have it replaced.
  if (key == "scratch") return value.is_string();
  return false;
}

bool is_option_family(const std::string& key) {
  auto& families = alloc::option_families();
  return std::find(families.begin(), families.end(), key) != families.end();
}

// Whether a file's root, [tool.X] or [profile.X] sections hold any restricted key, or an
// allocator option that writes files, aborts or changes the exit status (alloc/options.cpp).
bool has_restricted(const toml::table& t) {
  for (const auto& [k, v] : t) {
    std::string key(k.str());
    if ((key == "tool" || key == "profile") && v.is_table()) {
      for (const auto& [_, section] : *v.as_table())
        if (section.is_table() && has_restricted(*section.as_table())) return true;
    } else if (is_restricted(key, v)) {
      return true;
    } else if (is_option_family(key) && v.is_table()) {
      for (const auto& [name, _] : *v.as_table())
        if (alloc::restricted_option(key, std::string(name.str()))) return true;
    }
  }
  return false;
}

// An option name is letters, digits and '_' (then lowercased): anything else would be pasted into
// MALLOC_CONF or an environment variable's name as it is.
bool valid_option_name(const std::string& name) {
  return !name.empty() && name.size() < 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// A TOML integer or float within [lo, hi] as a double; nullopt for anything else (NaN too).
std::optional<double> number_within(const toml::node& n, double lo, double hi) {
  std::optional<double> v;
  if (auto i = n.value_exact<int64_t>()) v = double(*i);
  else if (auto d = n.value_exact<double>()) v = *d;
  if (!v || !(*v >= lo) || *v > hi) return std::nullopt;
  return v;
}

// A profile name written in explore_profiles, checked once every file has been read (a
// [profile.X] section in a later file may define it).
struct ProfileMention {
  std::string file;
  int line = 0, column = 0;
  std::string name;
};

struct FileContext {
  std::string path;
  std::string kind;
  bool trusted = true;       // false: an untrusted project file
  bool ignored_restricted = false;
  std::vector<Problem>* problems;
  std::vector<std::string> ignored;  // what an untrusted file set that was ignored, for the message
  std::vector<ProfileMention>* mentions = nullptr;
};

Origin origin_of(const FileContext& f, const toml::node& n) { return {f.path, int(n.source().begin.line)}; }

void report(const FileContext& f, const toml::node& n, std::string message, bool error = true) {
  f.problems->push_back({f.path, int(n.source().begin.line), int(n.source().begin.column), std::move(message), error});
}

std::optional<bool> get_bool(const FileContext& f, const std::string& key, const toml::node& n) {
  if (auto b = n.value_exact<bool>()) return *b;
  report(f, n, "'" + key + "' must be true or false");
  return std::nullopt;
}

std::optional<OptionValue> option_value(const toml::node& n) {
  if (auto b = n.value_exact<bool>()) return OptionValue(*b);
  if (auto i = n.value_exact<int64_t>()) return OptionValue(*i);
  if (auto d = n.value_exact<double>()) return OptionValue(*d);
  if (auto s = n.value_exact<std::string>()) return OptionValue(*s);
  return std::nullopt;
}

bool valid_locale(const std::string& v) {
  return !v.empty() && v.size() < 64 && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '@' || c == '-';
  });
}

bool has_nul(const std::string& s) { return s.find('\0') != std::string::npos; }

// Names a process can carry in its environment unambiguously: "A=B" = "c" would reach the
// tool as A="B=c", and a NUL would cut the string short where the kernel reads it.
bool valid_env_name(const std::string& name) {
  return !name.empty() && name.size() < 256 && name.find('=') == std::string::npos && !has_nul(name);
}

void apply_key(FileContext& f, const std::string& key, const toml::node& n, Settings& s, bool in_tool) {
  Origin o = origin_of(f, n);
  // TOML allows "\u0000" in strings; every string here ends up in a C string (a path, an
  // environment entry), where it would silently cut the value short.
  if (auto sv = n.value_exact<std::string>(); sv && has_nul(*sv))
    return report(f, n, "'" + key + "' contains a NUL character (\\u0000), which no path or variable can hold");
  if (key == "allocator") {
    auto v = n.value_exact<std::string>();
    if (!v) return report(f, n, "'allocator' must be a string such as \"mimalloc\"");
    if (v->find('/') != std::string::npos) {
      if ((*v)[0] != '/') return report(f, n, "allocator library path '" + *v + "' must be absolute");
      return s.allocator.set(*v, o);
    }
    auto names = alloc::known_names();
    if (std::find(names.begin(), names.end(), *v) != names.end()) return s.allocator.set(*v, o);
    auto near = util::nearest(*v, names);
    return report(f, n, "unknown allocator '" + *v + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                            " (known: " + util::join(names, ", ") + ", or an absolute library path)");
  }
  if (key == "locale") {
    auto v = n.value_exact<std::string>();
    if (!v) return report(f, n, "'locale' must be a string: a locale name such as \"C.UTF-8\", or \"keep\"");
    if (*v == "keep" || v->empty()) return s.locale.set("", o);
    if (!valid_locale(*v)) return report(f, n, "'locale' \"" + *v + "\" is not a locale name (e.g. \"C\", \"C.UTF-8\", \"keep\")");
    return s.locale.set(*v, o);
  }
  if (key == "scratch" && n.is_string()) {
    if (n.value_exact<std::string>() != "override")
      return report(f, n, "'scratch' must be true, false or \"override\" (true keeps a TMPDIR you set; \"override\" replaces it)");
    s.scratch.set(true, o);
    return s.scratch_override.set(true, o);
  }
  if (key == "scratch" || key == "keep_scratch" || key == "probe") {
    auto b = get_bool(f, key, n);
    if (!b) return;
    auto& target = key == "scratch" ? s.scratch : key == "probe" ? s.probe : s.keep_scratch;
    if (key == "scratch") s.scratch_override.set(false, o);
    return target.set(*b, o);
  }
  if (key == "scratch_min_free_mb") {
    auto i = n.value_exact<int64_t>();
    // Bounded (2^30 MiB, a PiB) so that its count of bytes cannot overflow.
    if (!i || *i < 0 || *i > (int64_t(1) << 30))
      return report(f, n, "'scratch_min_free_mb' must be a whole number of MiB between 0 and 1073741824");
    return s.scratch_min_free_mb.set(*i, o);
  }
  if (key == "scratch_min_free_percent") {
    auto p = number_within(n, 0, 100);
    if (!p)
      return report(f, n, "'scratch_min_free_percent' must be a share of RAM between 0 and 100, e.g. 10 or 2.5");
    return s.scratch_min_free_percent.set(*p, o);
  }
  if (key == "log_max_mb") {
    // A number of MiB, fractions allowed (0.5); 0 turns rotation off.
    auto mb = number_within(n, 0, 1024 * 1024);
    if (!mb)
      return report(f, n, "'log_max_mb' must be a size in MiB between 0 (never rotate) and 1048576, e.g. 64 or 0.5");
    return s.log_max_bytes.set(int64_t(*mb * 1024 * 1024), o);
  }
  if (key == "log_keep") {
    auto i = n.value_exact<int64_t>();
    if (!i || *i < 0 || *i > 100) return report(f, n, "'log_keep' must be an integer from 0 to 100 (rotated logs kept)");
    return s.log_keep.set(*i, o);
  }
  if (key == "library_dirs") {
    auto* a = n.as_array();
    std::vector<std::string> dirs;
    for (size_t i = 0; a && i < a->size(); ++i) {
      auto d = (*a)[i].value_exact<std::string>();
      if (!d || d->empty() || (*d)[0] != '/' || has_nul(*d)) {
        a = nullptr;
        break;
      }
      dirs.push_back(*d);
    }
    if (!a) return report(f, n, "'library_dirs' must be a list of absolute directories, e.g. [\"/opt/jemalloc/lib\"]");
    return s.library_dirs.set(dirs, o);
  }
  if (key == "explore") {
    auto p = number_within(n, 0, 1);
    if (!p)
      return report(f, n, "'explore' must be a share of runs between 0 (off) and 1, e.g. 0.1 for one run in ten");
    return s.explore.set(*p, o);
  }
  if (key == "explore_profiles") {
    auto* a = n.as_array();
    std::vector<std::string> names;
    for (size_t i = 0; a && i < a->size(); ++i) {
      auto v = (*a)[i].value_exact<std::string>();
      if (!v || v->empty() || v->find('/') != std::string::npos) {
        report(f, (*a)[i], "'explore_profiles' must list named profiles, e.g. [\"mimalloc\", \"jemalloc\", \"system\"] "
                           "(\"system\" is glibc's malloc; see `edashim profiles`)");
        return;
      }
      if (std::find(names.begin(), names.end(), *v) != names.end()) continue;
      names.push_back(*v);
      if (f.mentions)
        f.mentions->push_back({f.path, int((*a)[i].source().begin.line), int((*a)[i].source().begin.column), *v});
    }
    if (!a) return report(f, n, "'explore_profiles' must be a list of named profiles, e.g. [\"mimalloc\", \"system\"]");
    return s.explore_profiles.set(names, o);
  }
  if (key == "adopt" || key == "adopt_requires_bench") {
    auto b = get_bool(f, key, n);
    if (!b) return;
    return (key == "adopt" ? s.adopt : s.adopt_requires_bench).set(*b, o);
  }
  if (key == "log") {
    auto v = n.value_exact<std::string>();
    if (!v || v->empty()) return report(f, n, "'log' must be a file path or \"off\"");
    if (auto bad = log_placeholder_problem(*v); !bad.empty()) return report(f, n, bad);
    return s.log.set(*v, o);
  }
  if (key == "path") {
    if (!in_tool) return report(f, n, "'path' belongs in a [tool.NAME] section: it names that tool's executable");
    auto v = n.value_exact<std::string>();
    if (!v || v->empty() || (*v)[0] != '/') return report(f, n, "'path' must be the absolute path of the tool's executable");
    return s.tool_path.set(*v, o);
  }
  if (key == "env") {
    auto* t = n.as_table();
    if (!t) return report(f, n, "[env] must be a table of NAME = \"value\" (or NAME = false to unset)");
    for (const auto& [k, v] : *t) {
      std::string name(k.str());
      Origin vo = origin_of(f, v);
      if (!valid_env_name(name)) {
        report(f, v, "[env] \"" + util::join(util::split(name, '\0'), "\\u0000") +
                         "\" is not a variable name (it must be non-empty, without '=' or NUL)");
        continue;
      }
      if (auto sv = v.value_exact<std::string>(); sv && has_nul(*sv)) report(f, v, "[env] " + name + " contains a NUL character (\\u0000)");
      else if (sv) s.env[name].set(*sv, vo);
      else if (auto bv = v.value_exact<bool>(); bv && !*bv) s.env[name].set(std::nullopt, vo);
      else report(f, v, "[env] " + name + " must be a string, or false to unset it");
    }
    return;
  }
  if (is_option_family(key)) {
    auto* t = n.as_table();
    if (!t) return report(f, n, "[" + key + "] must be a table of options");
    for (const auto& [k, v] : *t) {
      std::string name(k.str());
      if (!has_nul(name) && !valid_option_name(name)) {
        report(f, v, "[" + key + "] \"" + util::join(util::split(name.substr(0, 60), '\n'), "\\n") +
                         "\" is not an option name (letters, digits and '_' only)");
        continue;
      }
      if (auto why = alloc::restricted_option(key, name); why && !f.trusted) {
        f.ignored_restricted = true;
        f.ignored.push_back("[" + key + "] " + name + " (" + *why + ")");
        continue;
      }
      auto value = option_value(v);
      if (auto* str = value ? std::get_if<std::string>(&*value) : nullptr; (str && has_nul(*str)) || has_nul(std::string(k.str()))) {
        report(f, v, "[" + key + "] " + std::string(k.str()).substr(0, std::string(k.str()).find('\0')) + " contains a NUL character (\\u0000)");
        continue;
      }
      if (!value) {
        report(f, v, "[" + key + "] " + std::string(k.str()) + " must be a boolean, number or string");
        continue;
      }
      // Checked here, where the file and line are known; names the installed version lacks
      // are left to the plan, which knows the version (pipeline/plan.cpp).
      if (auto bad = alloc::check_value(key, name, *value)) {
        report(f, v, *bad);
        continue;
      }
      s.options[key][util::to_lower(name)].set(*value, origin_of(f, v));
    }
    return;
  }
  auto near = util::nearest(key, layer_keys());
  report(f, n, "unknown key '" + key + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                   " (known: " + util::join(layer_keys(), ", ") + ")");
}

// Applies the plain keys of one table (a file's root, a [tool.X] or a [profile.X] section).
void apply_table(FileContext& f, const toml::table& t, Settings& s, bool in_tool) {
  for (const auto& [k, v] : t) {
    std::string key(k.str());
    if (key == "tool" || key == "profile") continue;  // handled by the caller, in priority order
    if (std::find(layer_keys().begin(), layer_keys().end(), key) == layer_keys().end()) {
      auto near = util::nearest(key, layer_keys());
      f.problems->push_back({f.path, int(k.source().begin.line), int(k.source().begin.column),
                             "unknown key '" + key + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                                 " (known: " + util::join(layer_keys(), ", ") + ")",
                             true});
      continue;
    }
    if (!f.trusted && is_restricted(key, v)) {
      f.ignored_restricted = true;
      f.ignored.push_back(key);
      continue;
    }
    apply_key(f, key, v, s, in_tool);
  }
}

void apply_tool_section(FileContext& f, const toml::table& root, const std::string& tool, Settings& s) {
  auto* tools = root.get("tool");
  if (!tools) return;
  auto* tt = tools->as_table();
  if (!tt) return report(f, *tools, "'tool' must hold sections such as [tool.yosys]");
  for (const auto& [name, section] : *tt) {
    auto* st = section.as_table();
    if (!st) {
      report(f, section, "[tool." + std::string(name.str()) + "] must be a table");
      continue;
    }
    if (auto* nested = st->get("tool")) report(f, *nested, "[tool.X] sections cannot nest");
    if (auto* nested = st->get("profile")) report(f, *nested, "[profile.X] cannot sit inside a [tool.X] section");
    if (name.str() == tool) apply_table(f, *st, s, true);
  }
}

// Whole-line comments blanked out (the newline kept, so lines and columns stay true), and
// trailing ones on lines without quotes: the shipped profiles are mostly comments explaining
// their choices, and toml++ decodes every character of them, a third of a run's instructions.
// Only when no multi-line string could make a '#' line part of a value.
std::string without_comment_lines(const std::string& text) {
  if (text.find("\"\"\"") != std::string::npos || text.find("'''") != std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    size_t first = text.find_first_not_of(" \t", pos);
    if (first < end && text[first] == '#') {
      // keep nothing of the comment
    } else {
      // A trailing comment on a line without quotes cannot be inside a string: cut it too.
      std::string_view line(text.data() + pos, end - pos);
      size_t hash = line.find('#');
      bool quoted = line.find_first_of("\"'") != std::string_view::npos;
      out.append(line.substr(0, hash != std::string_view::npos && !quoted ? hash : line.size()));
    }
    if (end < text.size()) out += '\n';
    pos = end + 1;
  }
  return out;
}

struct ParsedFile {
  std::string content;
  toml::table table;
};

// toml++ makes a table of each component of a dotted key or table name and walks them
// recursively, with no limit (values nest at most 256 deep): a 1 MiB key `a.a.a...` overflows
// the stack and kills edashim before the tool runs (found under ASan). Returns the first line
// with more than 256 dots outside strings and comments.
std::optional<int> too_deep(const std::string& text) {
  enum { kNormal, kBasic, kLiteral, kMultiBasic, kMultiLiteral, kComment } state = kNormal;
  int line = 1, dots = 0;
  auto at = [&](size_t i, const char* three) { return text.compare(i, 3, three) == 0; };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      dots = 0;
      if (state == kComment || state == kBasic || state == kLiteral) state = kNormal;
      continue;
    }
    switch (state) {
      case kNormal:
        if (c == '#') state = kComment;
        else if (c == '.' && ++dots > 256) return line;
        else if (c == '"' && at(i, "\"\"\"")) state = (i += 2, kMultiBasic);
        else if (c == '"') state = kBasic;
        else if (c == '\'' && at(i, "'''")) state = (i += 2, kMultiLiteral);
        else if (c == '\'') state = kLiteral;
        break;
      case kBasic:
        if (c == '\\') ++i;
        else if (c == '"') state = kNormal;
        break;
      case kLiteral:
        if (c == '\'') state = kNormal;
        break;
      case kMultiBasic:
        if (c == '\\') ++i;
        else if (at(i, "\"\"\"")) state = (i += 2, kNormal);
        break;
      case kMultiLiteral:
        if (at(i, "'''")) state = (i += 2, kNormal);
        break;
      case kComment:
        break;
    }
  }
  return std::nullopt;
}

std::optional<ParsedFile> parse(const std::string& path, const std::optional<std::string>& content,
                                std::vector<Problem>& problems, std::string& note) {
  if (!content) {
    note = "unreadable or larger than 1 MiB";
    problems.push_back({path, 0, 0, "cannot read this config file (or it is larger than 1 MiB)", true});
    return std::nullopt;
  }
  if (content->find('\0') != std::string::npos) {
    note = "contains a NUL byte";
    problems.push_back({path, 0, 0, "contains a NUL byte: not a TOML file", true});
    return std::nullopt;
  }
  if (auto line = too_deep(*content)) {
    note = "nested too deeply";
    problems.push_back({path, *line, 0, "more than 256 dotted key or table name components on one line: nested too deeply", true});
    return std::nullopt;
  }
  try {
    return ParsedFile{*content, toml::parse(without_comment_lines(*content), path)};
  } catch (const toml::parse_error& e) {
    note = "TOML syntax error";
    problems.push_back({path, int(e.source().begin.line), int(e.source().begin.column),
                        "TOML syntax error: " + std::string(e.description()), true});
    return std::nullopt;
  }
}

// The learned layer: between the user's file and project files, only with adopt on, only for
// this tool on this CPU model, and only while the tool binary it was learned on is unchanged.
void apply_learned(const LoadRequest& req, Loaded& out) {
  // The learned file decides what runs when adopt is on: held to the owned-file rule.
  auto text = util::read_owned(req.learned_file, {}, 1 << 20);
  if (text.absent) return;  // none learned yet
  if (!text.ok()) {
    out.problems.push_back({req.learned_file, 0, 0, text.why() + " (no learned choice is used)", false});
    return;
  }
  std::string error;
  auto entries = learn::parse_learned(text.content, req.learned_file, error);
  if (!entries) {
    out.problems.push_back({req.learned_file, 0, 0, error + " (no learned choice is used; edashim forget rewrites it)", false});
    return;
  }
  std::string cpu;
  for (const auto& e : *entries) {
    if (e.tool != req.tool) continue;
    if (cpu.empty()) cpu = req.cpu_model.empty() ? util::cpu_model(req.facts).value_or("") : req.cpu_model;
    if (e.cpu != cpu) continue;
    LearnedLayer layer;
    layer.entry = e;
    layer.file = req.learned_file;
    auto now = learn::identity_of(e.binary.path);
    if (!now || !(*now == e.binary)) {
      layer.note = "ignored: " + e.binary.path + (now ? " changed since it was learned (size or time differ)" : " is gone") +
                   "; report --recommend decides again from the new binary's runs";
      out.learned = std::move(layer);
      return;
    }
    auto parts = learn::parse_arm(e.arm);
    auto names = alloc::known_names();
    if (!parts || std::find(names.begin(), names.end(), parts->allocator) == names.end()) {
      layer.note = "ignored: '" + e.arm + "' is not an allocator this edashim knows";
      out.learned = std::move(layer);
      return;
    }
    layer.family = parts->allocator == "system" ? "glibc" : parts->allocator;
    for (const auto& [name, value] : parts->options) {
      if (!valid_option_name(name) || alloc::restricted_option(layer.family, name) ||
          alloc::check_value(layer.family, name, alloc::option_from_text(value))) {
        layer.note = "ignored: option " + name + "=" + value + " is not one edashim applies from a learned choice";
        out.learned = std::move(layer);
        return;
      }
    }
    Origin o{req.learned_file, e.line};
    auto& settings = out.settings;
    layer.allocator_before = settings.allocator;
    layer.options_before = settings.options[layer.family];
    settings.allocator.set(parts->allocator, o);
    for (const auto& [name, value] : parts->options) settings.options[layer.family][util::to_lower(name)].set(alloc::option_from_text(value), o);
    layer.applied = true;
    out.learned = std::move(layer);
    return;
  }
}

// The named profiles a run could select: "system" (glibc's malloc), the shipped and the user's
// profile files, and the [profile.X] sections of the files read. Checked by name first (a stat
// each, on every run of a user who explores); the directories are listed only for a name that
// is not there, to say what would be right.
void check_profile_mentions(const std::vector<ProfileMention>& mentions, const LoadRequest& req,
                            std::vector<std::string> known, std::vector<Problem>& problems) {
  const std::vector<std::string> dirs{req.shipped_dir + "/named", req.user_profiles_dir};
  auto exists = [&](const std::string& name) {
    if (name == "system" || std::find(known.begin(), known.end(), name) != known.end()) return true;
    return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return util::exists(d + "/" + name + ".toml"); });
  };
  bool listed = false;
  for (const auto& m : mentions) {
    if (exists(m.name)) continue;
    if (!listed) {
      listed = true;
      known.push_back("system");
      for (const auto& dir : dirs) {
        if (DIR* d = ::opendir(dir.c_str())) {
          while (auto* e = ::readdir(d)) {
            std::string name = e->d_name;
            if (name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0) known.push_back(name.substr(0, name.size() - 5));
          }
          ::closedir(d);
        }
      }
      std::sort(known.begin(), known.end());
      known.erase(std::unique(known.begin(), known.end()), known.end());
    }
    auto near = util::nearest(m.name, known);
    problems.push_back({m.file, m.line, m.column,
                        "explore_profiles: no profile named '" + m.name + "'" +
                            (near ? "; did you mean '" + *near + "'?" : "") + " (known: " + util::join(known, ", ") + ")",
                        true});
  }
}

// A run that explores loads the configuration a second time, with the candidate's profile
// (pipeline/explore.cpp): the files read again are parsed once per process, keyed by their
// path and exact bytes (bench/overhead: the second load cost ~0.4 ms, mostly toml++ parsing).
std::shared_ptr<const ParsedFile> parse_once(const std::string& path, const std::optional<std::string>& content,
                                             std::vector<Problem>& problems, std::string& note) {
  static std::map<std::string, std::shared_ptr<const ParsedFile>> parsed;
  std::string key = content ? path + '\0' + *content : "";
  if (auto it = parsed.find(key); content && it != parsed.end()) return it->second;
  auto p = parse(path, content, problems, note);
  if (!p) return nullptr;
  auto shared = std::make_shared<const ParsedFile>(std::move(*p));
  parsed.emplace(std::move(key), shared);
  return shared;
}

}  // namespace

void drop_learned(Loaded& loaded, const std::string& why) {
  if (!loaded.learned || !loaded.learned->applied) return;
  auto& layer = *loaded.learned;
  auto& s = loaded.settings;
  // Only what still comes from the learned file: a project file above it keeps its say.
  if (s.allocator.origin.file == layer.file) s.allocator = layer.allocator_before;
  auto& opts = s.options[layer.family];
  for (auto it = opts.begin(); it != opts.end();) {
    if (it->second.origin.file != layer.file) {
      ++it;
      continue;
    }
    auto before = layer.options_before.find(it->first);
    if (before != layer.options_before.end()) {
      it->second = before->second;
      ++it;
    } else {
      it = opts.erase(it);
    }
  }
  layer.applied = false;
  layer.note = "ignored: " + why;
}

std::vector<std::string> project_files(const std::string& cwd, std::string* stopped_because) {
  std::vector<std::string> dirs;
  if (cwd.empty() || cwd[0] != '/') return {};
  const uid_t me = ::getuid();
  std::string dir = cwd;
  dev_t start_dev = 0;
  while (true) {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) break;
    if (dirs.empty()) start_dev = st.st_dev;
    if (st.st_dev != start_dev) {
      if (stopped_because) *stopped_because = "stopped at " + dir + ": another filesystem";
      break;
    }
    if (st.st_uid != me && st.st_uid != 0) {
      if (stopped_because) *stopped_because = "stopped at " + dir + ": owned by another user";
      break;
    }
    dirs.push_back(dir);
    if (dir == "/") break;
    dir = util::dirname(dir);
  }
  std::vector<std::string> files;
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    std::string f = (*it == "/" ? "" : *it) + "/.edashim.toml";
    if (util::exists(f)) files.push_back(f);
  }
  return files;
}

Loaded load(const LoadRequest& req) {
  Loaded out;
  std::string trust_problem;  // the trust store cannot be used: said once, nothing is trusted
  // Named-profile sections found in config files, applied after all files, in file order.
  std::vector<std::pair<FileContext, toml::table>> profile_sections;
  std::vector<ProfileMention> mentions;     // explore_profiles entries, checked at the end
  std::vector<std::string> section_names;   // every [profile.X] of every file

  auto consider = [&](const std::string& path, const std::string& kind, bool must_exist) {
    auto file = read_config_file(path);
    if (!file.found) {
      if (must_exist) out.problems.push_back({path, 0, 0, "profile file not found", true});
      return;
    }
    ConsideredFile cf{path, kind, false, ""};
    // A project file that is not a regular file, or not the user's, is skipped with a word:
    // another user's FIFO at /tmp/.edashim.toml must not turn every run below /tmp plain.
    if (!file.refused.empty() && kind == "project") {
      cf.note = "skipped: " + file.refused;
      out.problems.push_back({path, 0, 0, "skipped: " + file.refused, false});
      out.files.push_back(cf);
      return;
    }
    // The user's and the system's own files, and a profile asked for: an error, said as such.
    if (!file.refused.empty()) file.why = file.refused;
    if (!file.why.empty()) {
      out.out_of_descriptors |= file.no_descriptor;
      cf.note = "cannot read: " + file.why;
      out.problems.push_back({path, 0, 0, "cannot read this config file: " + file.why, true});
      out.files.push_back(cf);
      return;
    }
    const std::string& real = file.real;
    std::optional<std::string> content = std::move(file.content);
    auto parsed = parse_once(real, content, out.problems, cf.note);
    if (!parsed) {
      out.files.push_back(cf);
      return;
    }
    FileContext f{path, kind, true, false, &out.problems, {}, &mentions};
    // Hashing the file and reading the trust store is only needed when there is something to
    // trust; most project files only choose an allocator.
    if (kind == "project" && has_restricted(parsed->table))
      f.trusted = req.trust && req.trust->is_trusted(trust_key(path), parsed->content, &trust_problem);
    apply_table(f, parsed->table, out.settings, false);
    apply_tool_section(f, parsed->table, req.tool, out.settings);
    if (auto* profiles = parsed->table.get("profile")) {
      if (auto* pt = profiles->as_table()) {
        for (const auto& [name, section] : *pt) {
          section_names.emplace_back(name.str());
          if (auto* st = section.as_table(); st && name.str() == req.chosen.profile) profile_sections.emplace_back(f, *st);
          else if (!section.as_table()) report(f, section, "[profile." + std::string(name.str()) + "] must be a table");
        }
      } else {
        report(f, *profiles, "'profile' must hold sections such as [profile.fast]");
      }
    }
    cf.used = true;
    if (f.ignored_restricted) {
      cf.note = "untrusted: ignored " + util::join(f.ignored, ", ") + " (trust it: edashim trust " +
                util::shell_quote(path) + ")";
      out.untrusted_files.push_back(path);
      out.ignored[path] = f.ignored;
    }
    out.files.push_back(cf);
  };

  consider(req.shipped_dir + "/defaults/all.toml", "shipped", false);
  if (!req.tool.empty()) consider(req.shipped_dir + "/defaults/" + req.tool + ".toml", "shipped", false);
  consider(req.system_file, "system", false);
  consider(req.user_file, "user", false);
  // Learned choices rank above the user's and the system's files (they are the user's, learned)
  // and below project files. adopt is read from the files so far: a project cannot turn it on.
  if (out.settings.adopt.value && !req.learned_file.empty() && !req.tool.empty()) apply_learned(req, out);
  for (const auto& f : project_files(req.cwd)) consider(f, "project", false);
  if (!trust_problem.empty()) out.problems.push_back({req.trust->path(), 0, 0, trust_problem, false});

  if (!req.chosen.profile.empty()) {
    if (req.chosen.profile.find('/') != std::string::npos) {
      // An explicit path chosen by the user: their own file, so trusted.
      consider(req.chosen.profile, "profile", true);
    } else {
      bool found = !profile_sections.empty();
      for (const auto& path : {req.shipped_dir + "/named/" + req.chosen.profile + ".toml",
                               req.user_profiles_dir + "/" + req.chosen.profile + ".toml"}) {
        if (util::exists(path)) {
          consider(path, "profile", false);
          found = true;
        }
      }
      for (auto& [f, table] : profile_sections) {
        size_t before = f.ignored.size();
        apply_table(f, table, out.settings, false);
        apply_tool_section(f, table, req.tool, out.settings);
        if (f.ignored.size() == before) continue;
        // The section's file was listed when it was read; what its profile section set is
        // ignored too, and said so.
        if (!out.ignored.count(f.path)) out.untrusted_files.push_back(f.path);
        auto& list = out.ignored[f.path];
        list.insert(list.end(), f.ignored.begin() + long(before), f.ignored.end());
      }
      if (!found)
        out.problems.push_back({req.chosen.profile_origin, 0, 0,
                                "no profile named '" + req.chosen.profile + "' (see `edashim profiles` for the list)", true});
    }
  }

  if (!req.chosen.allocator.empty()) {
    auto names = alloc::known_names();
    bool known = std::find(names.begin(), names.end(), req.chosen.allocator) != names.end();
    if (known || req.chosen.allocator[0] == '/') out.settings.allocator.set(req.chosen.allocator, {req.chosen.allocator_origin});
    else {
      auto near = util::nearest(req.chosen.allocator, names);
      out.problems.push_back({req.chosen.allocator_origin, 0, 0,
                              "unknown allocator '" + req.chosen.allocator + "'" +
                                  (near ? "; did you mean '" + *near + "'?" : "") + " (known: " +
                                  util::join(names, ", ") + ", or an absolute library path)",
                              true});
    }
  }
  if (!req.log.empty()) {
    if (auto bad = log_placeholder_problem(req.log, "EDASHIM_LOG"); !bad.empty())
      out.problems.push_back({"EDASHIM_LOG", 0, 0, bad, true});
    else
      out.settings.log.set(req.log, {"EDASHIM_LOG"});
  }
  check_profile_mentions(mentions, req, section_names, out.problems);
  return out;
}

}  // namespace config
