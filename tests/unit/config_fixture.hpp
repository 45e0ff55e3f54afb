#pragma once
// Config loading isolated from the machine's own files, for the config and hardening tests.
#include <string>
#include <vector>

#include "config/load.hpp"
#include "temp_dir.hpp"

// A request whose shipped, system and user files all live under `t` (cwd: t/proj/sub).
inline config::LoadRequest request_in(const TempDir& t, const std::string& tool = "yosys",
                                      const config::TrustStore* trust = nullptr) {
  config::LoadRequest r;
  r.tool = tool;
  r.cwd = t.path + "/proj/sub";
  util::make_dirs(r.cwd);
  r.shipped_dir = t.path + "/shipped";
  r.system_file = t.path + "/etc/config.toml";
  r.user_file = t.path + "/user/config.toml";
  r.user_profiles_dir = t.path + "/user/profiles";
  r.trust = trust;
  return r;
}

// Whether any reported problem's text contains `text`.
inline bool mentions(const config::Loaded& l, const std::string& text) {
  for (const auto& p : l.problems)
    if (p.str().find(text) != std::string::npos) return true;
  return false;
}

// What a file had ignored, without the why and line of each ("adopt (why; line 3)" -> "adopt").
inline std::vector<std::string> ignored_keys(const config::Loaded& l, const std::string& file) {
  std::vector<std::string> keys;
  auto it = l.ignored.find(file);
  if (it == l.ignored.end()) return keys;
  for (const auto& entry : it->second) keys.push_back(entry.substr(0, entry.find(" (")));
  return keys;
}
