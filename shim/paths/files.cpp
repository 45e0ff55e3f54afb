#include "paths/files.hpp"

#include "paths/layout.hpp"
#include "util/fs.hpp"

namespace paths {

Files Files::discover() {
  Files p;
  const Layout& l = layout();
  p.shipped_dir = l.shipped_profiles;
  p.probe_library = l.probe;
  p.system_file = "/etc/edashim/config.toml";
  std::string config_home = util::xdg_config_home() + "/edashim";
  p.user_file = config_home + "/config.toml";
  p.user_profiles_dir = config_home + "/profiles";
  p.trust_file = util::xdg_state_home() + "/edashim/trusted";
  p.learned_file = util::xdg_state_home() + "/edashim/learned.toml";
  return p;
}

std::string fact_cache_file() { return util::xdg_cache_home() + "/edashim/facts.tsv"; }

}  // namespace paths
