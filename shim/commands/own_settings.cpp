#include "commands/own_settings.hpp"

#include "config/load.hpp"
#include "config/trust.hpp"
#include "paths/files.hpp"

namespace commands {

config::Settings own_settings(const std::string& tool) {
  auto files = paths::Files::discover();
  config::TrustStore trust(files.trust_file);
  config::LoadRequest req;  // no cwd: no project file
  req.tool = tool;
  req.shipped_dir = files.shipped_dir;
  req.system_file = files.system_file;
  req.user_file = files.user_file;
  req.user_profiles_dir = files.user_profiles_dir;
  req.trust = &trust;
  return config::load(req).settings;
}

}  // namespace commands
