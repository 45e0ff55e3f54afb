#include "commands/profiles_cmd.hpp"

#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "pipeline/plan.hpp"
#include "config/load.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/toml_parse.hpp"

namespace commands {
namespace {

// NAME.toml files in a directory.
void add_files(const std::string& dir, std::map<std::string, std::string>& out) {
  for (auto& [name, path] : util::toml_files_in(dir)) out[name] = path;
}

// [profile.NAME] sections of a config file (a broken file is skipped; `explain` reports it).
// Nested as deep as a run reads (config::load): a project file is anyone's text.
// `redefine`: false for project files, whose sections add names but cannot redefine a shipped
// or a user's profile (config/keys.cpp, profile_refusal: ignored until trusted).
void add_sections(const std::string& file, std::map<std::string, std::string>& out, bool redefine = true) {
  auto text = util::read_file(file, 1 << 20);
  if (!text) return;
  auto table = util::parse_toml(*text, file, 256);
  if (!table) return;
  if (auto* profiles = (*table)["profile"].as_table())
    for (const auto& [name, section] : *profiles)
      if (section.is_table() && (redefine || !out.count(std::string(name.str()))))
        out[std::string(name.str())] = file + ":" + std::to_string(section.source().begin.line);
}

}  // namespace

std::string profile_summary(const std::string& name, const std::string& text) {
  std::string summary;
  for (const auto& line : util::split(text, '\n')) {
    auto at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] != '#') break;  // the block ends at a blank line or a key
    at = line.find_first_not_of("# \t", at);
    std::string words = at == std::string::npos ? "" : line.substr(at);
    if (summary.empty() && util::starts_with(words, name + ": ")) words.erase(0, name.size() + 2);
    if (!words.empty()) summary += (summary.empty() ? "" : " ") + words;
  }
  return summary;
}

int list_profiles() {
  std::printf("Named profiles (select with EDASHIM_PROFILE=NAME or edashim run -p NAME):\n");
  for (const auto& [name, where] : available_profiles()) {
    std::printf("  %-16s %s\n", name.c_str(), where.c_str());
    // A file's own word on what it is for; a [profile.NAME] section's "file:line" reads as nothing.
    auto text = util::read_file(where, 1 << 16);
    if (auto summary = text ? profile_summary(name, *text) : ""; !summary.empty())
      std::printf("  %-16s %s\n", "", summary.c_str());
  }
  std::printf("A path works too: EDASHIM_PROFILE=/path/to/profile.toml\n");
  return 0;
}

std::map<std::string, std::string> available_profiles() {
  paths::Files paths = paths::Files::discover();
  std::map<std::string, std::string> found;  // later sources override earlier ones, as in a run
  add_files(paths.shipped_dir + "/named", found);
  add_sections(paths.system_file, found);
  add_sections(paths.user_file, found);
  add_files(paths.user_profiles_dir, found);
  char cwd[4096];
  for (const auto& f : config::project_files(::getcwd(cwd, sizeof cwd) ? cwd : "/")) add_sections(f, found, false);
  return found;
}

}  // namespace commands
