#include "run/environment.hpp"

#include <algorithm>
#include <map>

#include "alloc/allocators.hpp"
#include "alloc/registry.hpp"
#include "alloc/sanitizers.hpp"
#include "util/strings.hpp"

namespace run {

std::vector<std::string> split_preload(const std::string& value) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : value) {
    if (c == ':' || c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool preload_safe(const std::string& path) { return path.find_first_of(" :") == std::string::npos; }

std::optional<std::string> lookup(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& e : env)
    if (e.size() > name.size() && e[name.size()] == '=' && e.compare(0, name.size(), name) == 0)
      return e.substr(name.size() + 1);
  return std::nullopt;
}

std::optional<std::string> effective_preload(const std::vector<std::string>& env) {
  std::optional<std::string> out;
  for (const auto& e : env)
    if (util::starts_with(e, "LD_PRELOAD=")) out = e.substr(11);
  return out;
}

std::string preloaded_allocator(const std::vector<std::string>& env) {
  for (const auto& p : split_preload(effective_preload(env).value_or(""))) {
    auto sanitizer = alloc::sanitizer_of_library(p);
    if (alloc::is_allocator_library(p) || (!sanitizer.empty() && sanitizer != "ubsan")) return p;
  }
  return "";
}

namespace {

bool is_probe(const std::string& path) { return util::starts_with(path.substr(path.rfind('/') + 1), "libedashim_probe"); }

// Preload: the caller's own libraries first, as they are (a sanitizer runtime must stay first,
// and a malloc interposer of theirs must see the calls it sees without edashim), then the
// allocator, then the probe; nothing that is already there. The exec hook is the probe's
// library: it comes with anything else edashim preloads. A path ld.so would split (preload_safe)
// is never added: the plan left it out and said so (pipeline/plan.cpp); this is the last guard.
std::vector<std::string> preload_additions(const EnvInputs& in, const std::vector<std::string>& entries) {
  auto present = [&](const std::string& lib) { return std::find(entries.begin(), entries.end(), lib) != entries.end(); };
  auto wanted = [](const std::string& lib) { return !lib.empty() && preload_safe(lib); };
  std::vector<std::string> added;
  if (wanted(in.allocator_library) && !present(in.allocator_library)) added.push_back(in.allocator_library);
  bool probe_there = std::any_of(entries.begin(), entries.end(), is_probe);
  if (wanted(in.probe_library) && !probe_there) added.push_back(in.probe_library);
  if (!added.empty() && wanted(in.hook_library) && !probe_there && !present(in.hook_library) &&
      std::find(added.begin(), added.end(), in.hook_library) == added.end())
    added.push_back(in.hook_library);
  return added;
}

// What a run below takes out again to start from its caller's environment (kSetVar): each
// variable given a value the caller had not set, or had set empty. One the caller set to a value
// is replaced only by scratch = "override", and what it was cannot be told from here: not listed.
std::string set_bookkeeping(const std::vector<std::pair<std::string, std::optional<std::string>>>& sets,
                            const std::vector<std::string>& current) {
  std::vector<SetEntry> entries;
  for (const auto& [name, value] : sets) {
    if (!value || name.empty() || name == "LD_PRELOAD" || name == kOursVar) continue;
    auto before = lookup(current, name);
    if (before && !before->empty()) continue;
    entries.push_back({name, value_fingerprint(*value), before.has_value()});
  }
  return encode_set_entries(entries);
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

constexpr size_t kFingerprintWidth = 16;

// `value` without the run of entries `ours`, all of them in order side by side, as edashim
// appended them; nullopt when no such run is there (the caller wrote LD_PRELOAD themselves).
std::optional<std::vector<std::string>> without_run(const std::string& value, const std::vector<std::string>& ours) {
  auto entries = split_preload(value);
  if (ours.empty() || entries.size() < ours.size()) return std::nullopt;
  for (size_t i = 0; i + ours.size() <= entries.size(); ++i)
    if (std::equal(ours.begin(), ours.end(), entries.begin() + long(i))) {
      entries.erase(entries.begin() + long(i), entries.begin() + long(i + ours.size()));
      return entries;
    }
  return std::nullopt;
}

bool is_marker(const std::string& name) {
  for (const char* marker : {kOursVar, kSetVar, kScratchVar, "__EDASHIM_PROBE", "__EDASHIM_NOTES", "__EDASHIM_ROUTE",
                             "__EDASHIM_ROUTE_NAME"})
    if (name == marker) return true;
  return false;
}

}  // namespace

std::string value_fingerprint(const std::string& value) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : value) h = (h ^ c) * 1099511628211ull;
  static const char digits[] = "0123456789abcdef";
  std::string out(kFingerprintWidth, '0');
  for (size_t i = kFingerprintWidth; i-- > 0; h >>= 4) out[i] = digits[h & 15];
  return out;
}

std::string encode_set_entries(const std::vector<SetEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    if (e.name.empty() || e.name.find('=') != std::string::npos) continue;  // no variable has such a name
    out += (out.empty() ? "" : ":") + e.name + (e.was_empty ? "==" : "=") + e.fingerprint;
  }
  return out;
}

std::vector<SetEntry> decode_set_entries(const std::string& text) {
  std::vector<SetEntry> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t eq = text.find('=', at);
    if (eq == std::string::npos || eq == at) break;
    SetEntry e{text.substr(at, eq - at), "", false};
    size_t hex = eq + 1;
    if (hex < text.size() && text[hex] == '=') e.was_empty = true, ++hex;
    size_t end = hex + kFingerprintWidth;
    if (end > text.size() || !std::all_of(text.begin() + long(hex), text.begin() + long(end), is_hex)) break;
    if (end < text.size() && text[end] != ':') break;
    e.fingerprint = text.substr(hex, kFingerprintWidth);
    out.push_back(std::move(e));
    at = end + 1;
  }
  return out;
}

std::vector<std::string> without_inherited(const std::vector<std::string>& env) {
  auto ours = split_preload(lookup(env, kOursVar).value_or(""));
  auto set = decode_set_entries(lookup(env, kSetVar).value_or(""));
  std::vector<std::string> out;
  for (const auto& e : env) {
    size_t eq = e.find('=');
    std::string name = e.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : e.substr(eq + 1);
    if (is_marker(name)) continue;
    if (name == "LD_PRELOAD") {
      auto kept = without_run(value, ours);
      if (!kept) out.push_back(e);
      else if (!kept->empty()) out.push_back("LD_PRELOAD=" + util::join(*kept, ":"));
      continue;
    }
    auto mine = std::find_if(set.begin(), set.end(), [&](const SetEntry& s) { return s.name == name; });
    if (mine == set.end() || mine->fingerprint != value_fingerprint(value)) out.push_back(e);
    else if (mine->was_empty) out.push_back(name + "=");
  }
  return out;
}

namespace {

// The environment being built: the variables edashim sets, in the order first set (nullopt: a
// removal), and the plan they become.
struct Draft {
  const EnvInputs& in;
  std::vector<std::pair<std::string, std::optional<std::string>>> sets;
  std::vector<std::string> front;  // variables that must come first (mimalloc 2.0 reads only 256)
  EnvPlan plan;

  void set(const std::string& name, std::optional<std::string> value) {
    for (auto& [n, v] : sets)
      if (n == name) {
        v = std::move(value);
        return;
      }
    sets.emplace_back(name, std::move(value));
  }

  // What a config file asks for: applied unless the caller set the variable.
  void from_profile(const std::string& name, std::optional<std::string> value) {
    auto yours = lookup(in.current, name);
    if (!yours || yours->empty()) return set(name, std::move(value));
    if (yours == value) return;
    for (auto& k : plan.kept)
      if (k.name == name) {
        k.profile = std::move(value);
        return;
      }
    plan.kept.push_back({name, *yours, std::move(value)});
  }
};

void add_preloads(Draft& d, const std::optional<std::string>& user_preload) {
  auto added = preload_additions(d.in, split_preload(user_preload.value_or("")));
  if (added.empty()) return;
  std::string mine = user_preload.value_or("");
  d.set("LD_PRELOAD", mine + (split_preload(mine).empty() ? "" : ":") + util::join(added, ":"));
  if (!d.in.hook_library.empty()) d.set(kOursVar, util::join(added, ":"));
}

// The chosen family's options, written as that family reads them (alloc/registry).
void add_options(Draft& d) {
  const alloc::Family* family = alloc::find_family(d.in.options_family);
  if (!family) return;
  for (auto& [name, value] : alloc::encode_options(*family, d.in.options)) {
    if (family->goes_first) d.front.push_back(name);
    d.from_profile(name, std::move(value));
  }
}

// Front variables, then the caller's environment in its order with our changes, then new
// variables. A changed variable replaces its first entry, except LD_PRELOAD, which replaces the
// entry ld.so reads (the last); other entries of the same name stay as they were.
void assemble(Draft& d) {
  const auto& current = d.in.current;
  std::map<std::string, std::optional<std::string>> final_values(d.sets.begin(), d.sets.end());
  std::vector<std::string> placed;
  auto is_placed = [&](const std::string& n) { return std::find(placed.begin(), placed.end(), n) != placed.end(); };
  auto entry = [](const std::string& n, const std::string& v) { return n + "=" + v; };
  for (const auto& name : d.front) {
    // [env] may unset what an option set (MIMALLOC_VERBOSE = false): then it is not placed
    // at all (dereferencing the empty value crashed edashim; found by fuzz_environment).
    if (is_placed(name) || !final_values.count(name)) continue;
    placed.push_back(name);
    if (const auto& v = final_values[name]) d.plan.env.push_back(entry(name, *v));
  }
  size_t last_preload = current.size();
  for (size_t i = 0; i < current.size(); ++i)
    if (util::starts_with(current[i], "LD_PRELOAD=")) last_preload = i;
  for (size_t i = 0; i < current.size(); ++i) {
    const auto& e = current[i];
    std::string name = e.substr(0, e.find('='));
    auto it = final_values.find(name);
    bool ours = it != final_values.end() && (name != "LD_PRELOAD" || i == last_preload);
    if (!ours) {
      d.plan.env.push_back(e);
      continue;
    }
    if (is_placed(name)) continue;
    placed.push_back(name);
    if (it->second) d.plan.env.push_back(entry(name, *it->second));
  }
  for (const auto& [name, value] : d.sets)
    if (value && !is_placed(name)) d.plan.env.push_back(entry(name, *value));
}

void list_changes(Draft& d, const std::optional<std::string>& user_preload) {
  // The hook's own bookkeeping says nothing about the run: not listed as changes.
  auto bookkeeping = [](const std::string& n) {
    return n == kOursVar || n == kSetVar || n == kScratchVar || n == "__EDASHIM_TOOLS" || n == "__EDASHIM_EXE";
  };
  for (const auto& [name, value] : d.sets) {
    if (bookkeeping(name)) continue;
    auto before = name == "LD_PRELOAD" ? user_preload : lookup(d.in.current, name);
    if (before != value) d.plan.changes.push_back({name, before, value});
  }
}

}  // namespace

EnvPlan build_environment(const EnvInputs& in) {
  Draft d{in, {}, {}, {}};
  auto user_preload = effective_preload(in.current);
  add_preloads(d, user_preload);
  add_options(d);
  if (!in.locale.empty()) d.from_profile("LC_ALL", in.locale);
  // The one exception: a scratch is made only when the user set no TMPDIR, TMP or TEMP, or a
  // trusted profile said scratch = "override" (pipeline/plan.cpp, choose_destinations).
  if (!in.scratch_dir.empty())
    for (const char* v : {"TMPDIR", "TMP", "TEMP"}) d.set(v, in.scratch_dir);
  for (const auto& [name, value] : in.env) d.from_profile(name, value);
  if (!in.hook_library.empty())
    if (auto entries = set_bookkeeping(d.sets, in.current); !entries.empty()) d.set(kSetVar, entries);
  if (!in.scratch_dir.empty()) d.set(kScratchVar, in.scratch_dir);
  for (const auto& [name, value] : in.markers) d.set(name, value);
  assemble(d);
  list_changes(d, user_preload);
  return std::move(d.plan);
}

}  // namespace run
