#include "tool/resolve.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "tool/elf_note.hpp"
#include "util/strings.hpp"

namespace tool {

SelfIdentity SelfIdentity::current(const char* chain_env) {
  SelfIdentity self;
  struct stat st;
  if (::stat("/proc/self/exe", &st) == 0) {
    self.id = {st.st_dev, st.st_ino};
    self.size = st.st_size;
  }
  if (chain_env && *chain_env)
    for (auto& p : util::split(chain_env, ':'))
      if (!p.empty()) self.chain.push_back(p);
  return self;
}

bool is_edashim(const std::string& path, const SelfIdentity& self) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  if (st.st_dev == self.id.dev && st.st_ino == self.id.ino) return true;
  if (!self.chain.empty()) {
    auto real = util::real_path(path);
    if (real && std::find(self.chain.begin(), self.chain.end(), *real) != self.chain.end()) return true;
  }
  // A copy (not a link) of edashim: same size first, so other programs cost one stat.
  if (st.st_size == self.size) {
    static const std::optional<std::string> mine = build_id("/proc/self/exe");
    auto theirs = build_id(path);
    if (mine && theirs && *mine == *theirs) return true;
  }
  return false;
}

Resolution resolve(const std::string& name, const std::string& path_env, const SelfIdentity& self) {
  Resolution r;
  for (auto dir : util::split(path_env, ':')) {
    if (dir.empty()) dir = ".";  // POSIX: an empty PATH entry is the current directory
    if (std::find(r.searched.begin(), r.searched.end(), dir) != r.searched.end()) continue;
    r.searched.push_back(dir);
    std::string candidate = dir + "/" + name;
    if (!util::is_regular_executable(candidate)) continue;
    if (is_edashim(candidate, self)) {
      r.skipped.push_back(candidate);
      continue;
    }
    r.path = candidate;
    return r;
  }
  return r;
}

std::string not_found_message(const std::string& name, const Resolution& r) {
  std::string msg = name + ": command not found (edashim searched PATH: " + util::join(r.searched, ":");
  if (!r.skipped.empty()) msg += "; skipped edashim itself at " + util::join(r.skipped, ", ");
  return msg + ")";
}

}  // namespace tool
