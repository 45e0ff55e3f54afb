#include "paths/layout.hpp"

#include "util/fs.hpp"

namespace paths {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

Layout layout_for(const std::string& self, const std::function<bool(const std::string&)>& is_dir,
                  const std::string& source_profiles) {
  std::string dir = util::dirname(self);
  // <prefix>/bin/edashim or <prefix>/lib/edashim/edashim-cli
  std::string prefix = ends_with(dir, "/lib/edashim") ? util::dirname(util::dirname(dir)) : util::dirname(dir);
  Layout l;
  l.shim = prefix + "/bin/edashim";
  l.command = prefix + "/lib/edashim/edashim-cli";
  l.probe = prefix + "/lib/edashim/libedashim_probe.so";
  l.shipped_profiles = prefix + "/share/edashim/profiles";
  if (!source_profiles.empty() && !is_dir(l.shipped_profiles)) {
    l.shim = dir + "/edashim";
    l.command = dir + "/edashim-cli";
    l.probe = dir + "/libedashim_probe.so";
    l.shipped_profiles = source_profiles;
  }
  return l;
}

const Layout& layout() {
#ifdef EDASHIM_BUILD_TREE
  static const std::string source_profiles = EDASHIM_SOURCE_PROFILES;
#else
  static const std::string source_profiles;
#endif
  static const Layout l = layout_for(util::self_exe(), util::is_directory, source_profiles);
  return l;
}

}  // namespace paths
