#include "config/keys.hpp"

#include <algorithm>
#include <cctype>

#include "alloc/allocators.hpp"
#include "alloc/options.hpp"
#include "alloc/registry.hpp"
#include "config/log_path.hpp"
#include "util/strings.hpp"

namespace config {
namespace {

Origin origin_of(const FileContext& f, const toml::node& n) { return {f.path, int(n.source().begin.line)}; }

bool has_nul(const std::string& s) { return s.find('\0') != std::string::npos; }

std::optional<bool> get_bool(const FileContext& f, const std::string& key, const toml::node& n) {
  if (auto b = n.value_exact<bool>()) return *b;
  report(f, n, "'" + key + "' must be true or false");
  return std::nullopt;
}

// A TOML integer or float within [lo, hi] as a double; nullopt for anything else (NaN too).
std::optional<double> number_within(const toml::node& n, double lo, double hi) {
  std::optional<double> v;
  if (auto i = n.value_exact<int64_t>()) v = double(*i);
  else if (auto d = n.value_exact<double>()) v = *d;
  if (!v || !(*v >= lo) || *v > hi) return std::nullopt;
  return v;
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

// Names a process can carry in its environment unambiguously: "A=B" = "c" would reach the
// tool as A="B=c", and a NUL would cut the string short where the kernel reads it.
bool valid_env_name(const std::string& name) {
  return !name.empty() && name.size() < 256 && name.find('=') == std::string::npos && !has_nul(name);
}

// A list of absolute directories, or nullopt. `strict`: no control characters either (they
// would reach messages and the terminal as they are).
std::optional<std::vector<std::string>> absolute_dirs(const toml::node& n, bool strict) {
  auto* a = n.as_array();
  if (!a) return std::nullopt;
  std::vector<std::string> dirs;
  for (size_t i = 0; i < a->size(); ++i) {
    auto d = (*a)[i].value_exact<std::string>();
    if (!d || d->empty() || (*d)[0] != '/' || has_nul(*d)) return std::nullopt;
    if (strict && std::any_of(d->begin(), d->end(), [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    dirs.push_back(*d);
  }
  return dirs;
}

void apply_allocator(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto v = n.value_exact<std::string>();
  if (!v) return report(f, n, "'allocator' must be a string such as \"mimalloc\"");
  if (v->find('/') != std::string::npos) {
    if ((*v)[0] != '/') return report(f, n, "allocator library path '" + *v + "' must be absolute");
    return s.allocator.set(*v, origin_of(f, n));
  }
  auto names = alloc::known_names();
  if (std::find(names.begin(), names.end(), *v) != names.end()) return s.allocator.set(*v, origin_of(f, n));
  auto near = util::nearest(*v, names);
  report(f, n, "unknown allocator '" + *v + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                   " (known: " + util::join(names, ", ") + ", or an absolute library path)");
}

void apply_locale(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto v = n.value_exact<std::string>();
  if (!v) return report(f, n, "'locale' must be a string: a locale name such as \"C.UTF-8\", or \"keep\"");
  if (*v == "keep" || v->empty()) return s.locale.set("", origin_of(f, n));
  if (!valid_locale(*v)) return report(f, n, "'locale' \"" + *v + "\" is not a locale name (e.g. \"C\", \"C.UTF-8\", \"keep\")");
  s.locale.set(*v, origin_of(f, n));
}

void apply_scratch(FileContext& f, const std::string& key, const toml::node& n, Settings& s, bool) {
  Origin o = origin_of(f, n);
  if (n.is_string()) {
    if (n.value_exact<std::string>() != "override")
      return report(f, n, "'scratch' must be true, false or \"override\" (true keeps a TMPDIR you set; \"override\" replaces it)");
    s.scratch.set(true, o);
    return s.scratch_override.set(true, o);
  }
  auto b = get_bool(f, key, n);
  if (!b) return;
  s.scratch_override.set(false, o);
  s.scratch.set(*b, o);
}

// keep_scratch, probe, supervise, adopt, adopt_requires_bench.
void apply_flag(FileContext& f, const std::string& key, const toml::node& n, Settings& s, bool) {
  auto b = get_bool(f, key, n);
  if (!b) return;
  auto& target = key == "keep_scratch" ? s.keep_scratch
                 : key == "probe"      ? s.probe
                 : key == "supervise"  ? s.supervise
                 : key == "adopt"      ? s.adopt
                                       : s.adopt_requires_bench;
  target.set(*b, origin_of(f, n));
}

void apply_scratch_min_free_mb(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto i = n.value_exact<int64_t>();
  // Bounded (2^30 MiB, a PiB) so that its count of bytes cannot overflow.
  if (!i || *i < 0 || *i > (int64_t(1) << 30))
    return report(f, n, "'scratch_min_free_mb' must be a whole number of MiB between 0 and 1073741824");
  s.scratch_min_free_mb.set(*i, origin_of(f, n));
}

void apply_scratch_min_free_percent(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto p = number_within(n, 0, 100);
  if (!p) return report(f, n, "'scratch_min_free_percent' must be a share of RAM between 0 and 100, e.g. 10 or 2.5");
  s.scratch_min_free_percent.set(*p, origin_of(f, n));
}

void apply_log_max_mb(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  // A number of MiB, fractions allowed (0.5); 0 turns rotation off.
  auto mb = number_within(n, 0, 1024 * 1024);
  if (!mb) return report(f, n, "'log_max_mb' must be a size in MiB between 0 (never rotate) and 1048576, e.g. 64 or 0.5");
  s.log_max_bytes.set(int64_t(*mb * 1024 * 1024), origin_of(f, n));
}

void apply_log_keep(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto i = n.value_exact<int64_t>();
  if (!i || *i < 0 || *i > 100) return report(f, n, "'log_keep' must be an integer from 0 to 100 (rotated logs kept)");
  s.log_keep.set(*i, origin_of(f, n));
}

void apply_library_dirs(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto dirs = absolute_dirs(n, false);
  if (!dirs) return report(f, n, "'library_dirs' must be a list of absolute directories, e.g. [\"/opt/jemalloc/lib\"]");
  s.library_dirs.set(*dirs, origin_of(f, n));
}

void apply_shared_dirs(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool in_tool) {
  if (in_tool) return report(f, n, "'shared_dirs' belongs at the top level of the file, not in a [tool.X] or [profile.X] section");
  auto dirs = absolute_dirs(n, true);
  if (!dirs)
    return report(f, n, "'shared_dirs' must be a list of absolute directories without control characters, "
                        "e.g. [\"/shared/edashim-logs\"]");
  s.shared_dirs.set(*dirs, origin_of(f, n));
}

void apply_farm_edashim(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool in_tool) {
  if (in_tool) return report(f, n, "'farm_edashim' belongs at the top level of the file, not in a [tool.X] or [profile.X] section");
  auto paths = absolute_dirs(n, true);
  if (!paths)
    return report(f, n, "'farm_edashim' must be a list of absolute paths of edashim commands without control characters, "
                        "e.g. [\"/opt/edashim/lib/edashim/edashim-cli\"]");
  s.farm_edashim.set(*paths, origin_of(f, n));
}

void apply_explore(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto p = number_within(n, 0, 1);
  if (!p) return report(f, n, "'explore' must be a share of runs between 0 (off) and 1, e.g. 0.1 for one run in ten");
  s.explore.set(*p, origin_of(f, n));
}

void apply_explore_profiles(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto* a = n.as_array();
  if (!a) return report(f, n, "'explore_profiles' must be a list of named profiles, e.g. [\"mimalloc\", \"system\"]");
  std::vector<std::string> names;
  for (size_t i = 0; i < a->size(); ++i) {
    auto v = (*a)[i].value_exact<std::string>();
    if (!v || v->empty() || v->find('/') != std::string::npos || has_nul(*v))
      return report(f, (*a)[i], "'explore_profiles' must list named profiles, e.g. [\"mimalloc\", \"jemalloc\", \"system\"] "
                                "(\"system\" is glibc's malloc; see `edashim profiles`)");
    if (std::find(names.begin(), names.end(), *v) != names.end()) continue;
    names.push_back(*v);
    if (f.mentions) f.mentions->push_back({f.path, int((*a)[i].source().begin.line), int((*a)[i].source().begin.column), *v});
  }
  s.explore_profiles.set(names, origin_of(f, n));
}

void apply_log(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
  auto v = n.value_exact<std::string>();
  if (!v || v->empty()) return report(f, n, "'log' must be a file path or \"off\"");
  if (auto bad = log_placeholder_problem(*v); !bad.empty()) return report(f, n, bad);
  s.log.set(*v, origin_of(f, n));
}

void apply_path(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool in_tool) {
  if (!in_tool) return report(f, n, "'path' belongs in a [tool.NAME] section: it names that tool's executable");
  auto v = n.value_exact<std::string>();
  if (!v || v->empty() || (*v)[0] != '/') return report(f, n, "'path' must be the absolute path of the tool's executable");
  s.tool_path.set(*v, origin_of(f, n));
}

void apply_env(FileContext& f, const std::string&, const toml::node& n, Settings& s, bool) {
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
    // edashim sets these for each run (loop protection, the probe's records, the scratch): a
    // value from a file would be overwritten, or would break what they are for.
    if (name.starts_with("__EDASHIM_")) {
      report(f, v, "[env] " + name + ": names beginning __EDASHIM_ are edashim's own, set for each run; remove the line");
      continue;
    }
    if (auto sv = v.value_exact<std::string>(); sv && has_nul(*sv)) report(f, v, "[env] " + name + " contains a NUL character (\\u0000)");
    else if (sv) s.env[name].set(*sv, vo);
    else if (auto bv = v.value_exact<bool>(); bv && !*bv) s.env[name].set(std::nullopt, vo);
    else report(f, v, "[env] " + name + " must be a string, or false to unset it");
  }
}

// One option of an allocator family's table: `name = value`, or a problem. False: not applied.
bool apply_option(FileContext& f, const std::string& family, const std::string& name, const toml::node& v, Settings& s) {
  std::string shown = name.substr(0, name.find('\0'));
  if (!has_nul(name) && !valid_option_name(name)) {
    report(f, v, "[" + family + "] \"" + util::join(util::split(name.substr(0, 60), '\n'), "\\n") +
                     "\" is not an option name (letters, digits and '_' only)");
    return false;
  }
  auto value = option_value(v);
  if (auto* str = value ? std::get_if<std::string>(&*value) : nullptr; (str && has_nul(*str)) || has_nul(name)) {
    report(f, v, "[" + family + "] " + shown + " contains a NUL character (\\u0000)");
    return false;
  }
  if (!value) {
    report(f, v, "[" + family + "] " + name + " must be a boolean, number or string");
    return false;
  }
  // Names the installed version lacks are left to the plan, which knows the version
  // (pipeline/plan.cpp); an untrusted file may name only options some version has.
  if (auto bad = alloc::check_value(family, name, *value)) {
    report(f, v, *bad);
    return false;
  }
  if (!f.trusted && !alloc::known_option(family, name)) {
    report(f, v, alloc::check_option(family, "", name, *value).value_or("[" + family + "] has no option '" + name + "'"));
    return false;
  }
  s.options[family][util::to_lower(name)].set(*value, origin_of(f, v));
  return true;
}

void apply_options(FileContext& f, const std::string& family, const toml::node& n, Settings& s, bool) {
  auto* t = n.as_table();
  if (!t) return report(f, n, "[" + family + "] must be a table of options");
  for (const auto& [k, v] : *t) {
    std::string name(k.str());
    if (!f.trusted) {
      if (auto value = option_value(v); value && valid_option_name(name)) {
        if (auto why = alloc::untrusted_refusal(family, name, *value)) {
          ignore(f, "[" + family + "] " + name, *why, v);
          continue;
        }
      }
    }
    apply_option(f, family, name, v, s);
  }
}

std::optional<std::string> untrusted_allocator(const toml::node& n) {
  auto v = n.value_exact<std::string>();
  if (v && v->find('/') != std::string::npos) return "a library path: it chooses code to run in every tool";
  return std::nullopt;
}

std::optional<std::string> untrusted_scratch(const toml::node& n) {
  if (n.value_exact<std::string>() == "override") return "\"override\" replaces a TMPDIR you set, which holds what you chose to keep";
  return std::nullopt;
}

constexpr const char* kExperiments = "turning your runs into experiments, or adopting what they taught, is your call";

}  // namespace

const std::vector<KeySpec>& key_table() {
  // Order: what messages list as the known keys.
  static const std::vector<KeySpec> table = [] {
    std::vector<KeySpec> keys = {
      {"allocator", apply_allocator, nullptr, untrusted_allocator},
      {"locale", apply_locale, nullptr},
      {"scratch", apply_scratch, nullptr, untrusted_scratch},
      {"keep_scratch", apply_flag, "a tool's temporary files would stay in RAM (tmpfs), never swept"},
      {"scratch_min_free_mb", apply_scratch_min_free_mb, "how much RAM scratch leaves free is yours to lower"},
      {"scratch_min_free_percent", apply_scratch_min_free_percent, "how much RAM scratch leaves free is yours to lower"},
      {"probe", apply_flag, "what your runs record is your call"},
      {"supervise", apply_flag, "whether a process of edashim's stands between you and your tools is your call"},
      {"log", apply_log, "chooses a file every run appends to"},
      {"path", apply_path, "chooses the program run as the tool"},
      {"env", apply_env, "sets the tool's environment (LD_PRELOAD, PATH, ...)"},
      {"log_max_mb", apply_log_max_mb, "could rotate your run history away"},
      {"log_keep", apply_log_keep, "could rotate your run history away"},
      {"library_dirs", apply_library_dirs, "chooses where preloaded libraries come from"},
      {"shared_dirs", apply_shared_dirs, "names directories other users may write as yours to read", nullptr, true},
      {"farm_edashim", apply_farm_edashim, "chooses the program farm tasks run as edashim", nullptr, true},
      {"explore", apply_explore, kExperiments},
      {"explore_profiles", apply_explore_profiles, kExperiments},
      {"adopt", apply_flag, kExperiments},
      {"adopt_requires_bench", apply_flag, kExperiments},
    };
    // A table of options per allocator family (alloc/registry); their names are string literals
    // there, so data() is a terminated string that lives as long as the program.
    for (const auto& family : alloc::families()) keys.push_back({family.name.data(), apply_options, nullptr});
    return keys;
  }();
  return table;
}

const KeySpec* find_key(const std::string& name) {
  for (const auto& k : key_table())
    if (name == k.name) return &k;
  return nullptr;
}

std::vector<Refusal> untrusted_refusals(const std::string& key, const toml::node& value) {
  const KeySpec* spec = find_key(key);
  if (!spec || spec->own_config_only) return {};  // unknown: a problem; own_config_only: ignored whoever trusts it
  if (spec->untrusted_why) return {{key, spec->untrusted_why, &value}};
  if (spec->untrusted_value) {
    if (auto why = spec->untrusted_value(value)) return {{key, *why, &value}};
    return {};
  }
  std::vector<Refusal> out;
  if (spec->apply != apply_options || !value.is_table()) return out;
  for (const auto& [k, v] : *value.as_table()) {
    std::string name(k.str());
    auto option = option_value(v);
    if (!option || !valid_option_name(name)) continue;
    if (auto why = alloc::untrusted_refusal(key, name, *option)) out.push_back({"[" + key + "] " + name, *why, &v});
  }
  return out;
}

std::string profile_refusal(const FileContext& f, const std::string& name) {
  if (f.trusted || !f.profile_owner) return "";
  std::string owner = f.profile_owner(name);
  if (owner.empty()) return "";
  return "redefines " + owner + " profile '" + name + "': -p " + name + " would run something else under its name";
}

bool needs_trust(const FileContext& f, const toml::table& root) {
  // Sections nest one way: [profile.X] at the top, [tool.Y] at the top or in a profile.
  for (const auto& [k, v] : root) {
    std::string key(k.str());
    if (key != "tool" && key != "profile") {
      if (!untrusted_refusals(key, v).empty()) return true;
      continue;
    }
    auto* sections = v.as_table();
    for (const auto& [name, section] : sections ? *sections : toml::table{}) {
      if (key == "profile" && !profile_refusal(f, std::string(name.str())).empty()) return true;
      if (auto* st = section.as_table(); st && needs_trust(f, *st)) return true;
    }
  }
  return false;
}

void report(const FileContext& f, const toml::node& n, std::string message, bool error) {
  f.problems->push_back({f.path, int(n.source().begin.line), int(n.source().begin.column), std::move(message), error});
}

void ignore(FileContext& f, const std::string& what, const std::string& why, const toml::node& at) {
  f.ignored.push_back(what + " (" + why + "; line " + std::to_string(at.source().begin.line) + ")");
}

bool valid_option_name(const std::string& name) {
  return !name.empty() && name.size() < 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void apply_table(FileContext& f, const toml::table& t, Settings& s, bool in_tool) {
  for (const auto& [k, v] : t) {
    std::string key(k.str());
    if (key == "tool" || key == "profile") continue;  // handled by the caller, in priority order
    const KeySpec* spec = find_key(key);
    if (!spec) {
      std::vector<std::string> names;
      for (const auto& known : key_table()) names.emplace_back(known.name);
      auto near = util::nearest(key, names);
      f.problems->push_back({f.path, int(k.source().begin.line), int(k.source().begin.column),
                             "unknown key '" + key + "'" + (near ? "; did you mean '" + *near + "'?" : "") +
                                 " (known: " + util::join(names, ", ") + ")",
                             true});
      continue;
    }
    if (spec->own_config_only && f.kind != FileKind::user && f.kind != FileKind::system) {
      report(f, v, "'" + key + "' ignored: it " + spec->untrusted_why + ", so only your own config sets it (" +
                       f.own_files + "), never a " + std::string(file_kind_name(f.kind)) + " file", false);
      continue;
    }
    // TOML allows "\u0000" in strings; every string here ends up in a C string (a path, an
    // environment entry), where it would silently cut the value short.
    if (auto sv = v.value_exact<std::string>(); sv && has_nul(*sv)) {
      report(f, v, "'" + key + "' contains a NUL character (\\u0000), which no path or variable can hold");
      continue;
    }
    // An allocator's table is sifted option by option as it is applied.
    if (!f.trusted && spec->apply != apply_options) {
      auto refused = untrusted_refusals(key, v);
      if (!refused.empty()) {
        ignore(f, refused[0].what, refused[0].why, v);
        continue;
      }
    }
    spec->apply(f, key, v, s, in_tool);
  }
}

// Another tool's [tool.X] path, for the exec hook (Settings::routed_paths). Its mistakes, and an
// untrusted file's word, are said when X itself runs (apply_path); here they route nothing. The
// hook reads the pairs as NAME=PATH lines: no newline in either, no '=' in the name.
static void note_routed_path(const FileContext& f, const std::string& name, const toml::node& n, Settings& s) {
  auto v = n.value_exact<std::string>();
  if (!f.trusted || !v || v->empty() || (*v)[0] != '/' || v->find('\n') != std::string::npos || name.empty() ||
      name.find_first_of("=\n") != std::string::npos)
    return;
  s.routed_paths[name].set(*v, origin_of(f, n));
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
    else if (auto* path = st->get("path")) note_routed_path(f, std::string(name.str()), *path, s);
  }
}

}  // namespace config
