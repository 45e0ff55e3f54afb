#include "tool/resolve.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "elf/elf_image.hpp"
#include "util/mapped_file.hpp"
#include "paths/layout.hpp"
#include "util/strings.hpp"

namespace tool {

SelfIdentity SelfIdentity::current(const char* chain_env) {
  SelfIdentity self;
  auto add = [&](const std::string& path) {
    struct stat st;
    if (!path.empty() && ::stat(path.c_str(), &st) == 0 && !self.same_file({st.st_dev, st.st_ino}))
      self.images.push_back({path, {st.st_dev, st.st_ino}, st.st_size});
  };
  add(util::self_exe());
  // Tool links point to the shim: the command (edashim-cli) must know it too. The shim itself
  // skips this, so that EDASHIM=off never computes the layout (a stat) before its exec.
  if (util::basename(util::self_exe()) == "edashim-cli") add(paths::layout().shim);
  if (chain_env && *chain_env)
    for (auto& p : util::split(chain_env, ':'))
      if (!p.empty()) self.chain.push_back(p);
  return self;
}

bool SelfIdentity::same_file(const util::FileId& id) const {
  return std::any_of(images.begin(), images.end(), [&](const Image& i) { return i.id == id; });
}

namespace {
// Mapped, not read: the kernel reads only the pages the note lookup touches.
std::optional<std::string> build_id_of(const std::string& path) {
  util::MappedFile file;
  if (!file.open(path)) return std::nullopt;
  return elf::build_id(file.bytes());
}
}  // namespace

bool is_edashim(const std::string& path, const SelfIdentity& self) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  if (self.same_file({st.st_dev, st.st_ino})) return true;
  if (!self.chain.empty()) {
    auto real = util::real_path(path);
    if (real && std::find(self.chain.begin(), self.chain.end(), *real) != self.chain.end()) return true;
  }
  // A copy (not a link) of edashim: same size first, so other programs cost one stat.
  for (const auto& image : self.images) {
    if (st.st_size != image.size) continue;
    auto mine = build_id_of(image.path), theirs = build_id_of(path);
    if (mine && theirs && *mine == *theirs) return true;
  }
  return false;
}

Resolution resolve(const std::string& name, const std::string& path_env, const SelfIdentity& self,
                   const std::vector<std::string>& passed_over) {
  Resolution r;
  r.passed_over = passed_over;
  for (auto dir : util::split(path_env, ':')) {
    if (dir.empty()) dir = ".";  // POSIX: an empty PATH entry is the current directory
    if (std::find(r.searched.begin(), r.searched.end(), dir) != r.searched.end()) continue;
    r.searched.push_back(dir);
    std::string candidate = dir + "/" + name;
    struct stat st;  // one stat a directory, as is_regular_executable: this runs before every tool
    if (::stat(candidate.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::access(candidate.c_str(), X_OK) != 0) {
      if (r.denied.empty()) r.denied = candidate;
      continue;
    }
    if (std::find(passed_over.begin(), passed_over.end(), candidate) != passed_over.end()) continue;
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
  if (!r.denied.empty()) return name + ": " + r.denied + ": Permission denied";
  std::string msg = name + ": command not found (edashim searched PATH: " + util::join(r.searched, ":");
  if (!r.skipped.empty()) msg += "; skipped edashim itself at " + util::join(r.skipped, ", ");
  return msg + ")";
}

}  // namespace tool
