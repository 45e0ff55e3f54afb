#include "paths/layout.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  l.modulefiles = prefix + "/share/edashim/modulefiles";
  l.own_allocators = prefix + "/lib/edashim/alloc";
  if (!source_profiles.empty() && !is_dir(l.shipped_profiles)) {
    l.shim = dir + "/edashim";
    l.command = dir + "/edashim-cli";
    l.probe = dir + "/libedashim_probe.so";
    l.shipped_profiles = source_profiles;
    l.modulefiles.clear();
    l.own_allocators = dir + "/alloc";
  }
  return l;
}

std::string build_tree_profiles(const std::string& binary_dir) {
  std::string marker = binary_dir + "/edashim-build-tree";
  util::Fd fd(::open(marker.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) return "";
  struct stat st;
  std::string text;
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_uid == ::getuid() || st.st_uid == 0) &&
      !(st.st_mode & (S_IWGRP | S_IWOTH)) && st.st_size < 4096) {
    char buf[4096];
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n > 0) text.assign(buf, size_t(n));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  // One absolute path on one line, or nothing.
  if (text.empty() || text[0] != '/' || text.find('\n') != std::string::npos) return "";
  return text;
}

const Layout& layout() {
  static const Layout l = [] {
    std::string self = util::self_exe();
    std::string dir = util::dirname(self);
    // The marker is read only when the installed profiles are missing: an installed binary
    // does not even look for it unless its own layout is broken.
    auto installed = layout_for(self, util::is_directory, "");
    if (util::is_directory(installed.shipped_profiles)) return installed;
    return layout_for(self, util::is_directory, build_tree_profiles(dir));
  }();
  return l;
}

}  // namespace paths
