#include "run/environment.hpp"

#include <algorithm>
#include <map>

#include "alloc/allocators.hpp"
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

std::optional<std::string> lookup(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& e : env)
    if (e.size() > name.size() && e[name.size()] == '=' && e.compare(0, name.size(), name) == 0)
      return e.substr(name.size() + 1);
  return std::nullopt;
}

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_probe(const std::string& path) { return util::starts_with(path.substr(path.rfind('/') + 1), "libedashim_probe"); }

}  // namespace

EnvPlan build_environment(const EnvInputs& in) {
  const config::Settings& s = *in.settings;
  // Ordered map of final values; std::nullopt marks a removal.
  std::vector<std::pair<std::string, std::optional<std::string>>> sets;
  auto set = [&](const std::string& name, std::optional<std::string> value) {
    for (auto& [n, v] : sets)
      if (n == name) {
        v = std::move(value);
        return;
      }
    sets.emplace_back(name, std::move(value));
  };
  std::vector<std::string> front;  // variables that must come first (mimalloc 2.0 reads only 256)

  EnvPlan plan;
  // Preload: allocator, then the probe, then whatever the user had, minus other allocators.
  std::vector<std::string> preload;
  if (!in.allocator_library.empty()) preload.push_back(in.allocator_library);
  if (!in.probe_library.empty()) preload.push_back(in.probe_library);
  auto user_preload = lookup(in.current, "LD_PRELOAD");
  for (const auto& p : split_preload(user_preload.value_or(""))) {
    if (alloc::is_allocator_library(p) || is_probe(p)) {
      if (p != in.allocator_library && !is_probe(p)) plan.removed_preloads.push_back(p);
      continue;
    }
    if (std::find(preload.begin(), preload.end(), p) == preload.end()) preload.push_back(p);
  }
  if (preload.empty()) {
    if (user_preload) set("LD_PRELOAD", std::nullopt);
  } else {
    set("LD_PRELOAD", util::join(preload, ":"));
  }

  auto opts = s.options.find(in.options_family);
  if (opts != s.options.end() && !opts->second.empty()) {
    const auto& family = in.options_family;
    if (family == "mimalloc") {
      for (const auto& [k, v] : opts->second) {
        set("MIMALLOC_" + upper(k), alloc::render_option(v.value, false));
        front.push_back("MIMALLOC_" + upper(k));
      }
    } else if (family == "jemalloc") {
      std::vector<std::string> pairs;
      for (const auto& [k, v] : opts->second) pairs.push_back(k + ":" + alloc::render_option(v.value, true));
      std::string conf = util::join(pairs, ",");
      // jemalloc applies pairs left to right, so ours after the user's win.
      if (auto mine = lookup(in.current, "MALLOC_CONF"); mine && !mine->empty()) conf = *mine + "," + conf;
      set("MALLOC_CONF", conf);
    } else if (family == "tcmalloc" || family == "tbbmalloc") {
      std::string prefix = family == "tcmalloc" ? "TCMALLOC_" : "TBB_MALLOC_";
      for (const auto& [k, v] : opts->second) set(prefix + upper(k), alloc::render_option(v.value, false));
    } else if (family == "glibc" || family == "glibc_fallback") {
      std::vector<std::string> parts;
      auto mine = lookup(in.current, "GLIBC_TUNABLES");
      std::vector<std::string> keep;
      for (const auto& t : util::split(mine.value_or(""), ':')) {
        if (t.empty()) continue;
        auto name = t.substr(0, t.find('='));
        if (!opts->second.count(name.substr(name.rfind('.') + 1)) || !util::starts_with(name, "glibc.malloc."))
          keep.push_back(t);
      }
      for (const auto& [k, v] : opts->second) keep.push_back("glibc.malloc." + k + "=" + alloc::render_option(v.value, false));
      set("GLIBC_TUNABLES", util::join(keep, ":"));
    }
  }

  if (!s.locale.value.empty()) set("LC_ALL", s.locale.value);
  if (!in.scratch_dir.empty())
    for (const char* v : {"TMPDIR", "TMP", "TEMP"}) set(v, in.scratch_dir);
  for (const auto& [name, value] : s.env) set(name, value.value);
  for (const auto& [name, value] : in.markers) set(name, value);

  // Assemble: front variables, then the caller's environment in its order with our changes,
  // then new variables.
  std::map<std::string, std::optional<std::string>> final_values(sets.begin(), sets.end());
  std::vector<std::string> placed;
  auto entry = [](const std::string& n, const std::string& v) { return n + "=" + v; };
  for (const auto& name : front) {
    // [env] may unset what an option set (MIMALLOC_VERBOSE = false): then it is not placed
    // at all (dereferencing the empty value crashed edashim; found by fuzz_environment).
    if (std::find(placed.begin(), placed.end(), name) != placed.end()) continue;
    placed.push_back(name);
    if (const auto& v = final_values[name]) plan.env.push_back(entry(name, *v));
  }
  for (const auto& e : in.current) {
    auto eq = e.find('=');
    std::string name = e.substr(0, eq);
    if (std::find(placed.begin(), placed.end(), name) != placed.end()) continue;
    auto it = final_values.find(name);
    if (it == final_values.end()) {
      plan.env.push_back(e);
      continue;
    }
    if (it->second) plan.env.push_back(entry(name, *it->second));
    placed.push_back(name);
  }
  for (const auto& [name, value] : sets)
    if (value && std::find(placed.begin(), placed.end(), name) == placed.end()) plan.env.push_back(entry(name, *value));

  for (const auto& [name, value] : sets) {
    auto before = lookup(in.current, name);
    if (before != value) plan.changes.push_back({name, before, value});
  }
  return plan;
}

}  // namespace run
