#include "run/scratch.hpp"

#include <dirent.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace run {

std::vector<std::string> scratch_candidates() {
  if (const char* t = std::getenv("EDASHIM_SCRATCH_BASES"); t && *t) {
    std::vector<std::string> out;
    for (auto& d : util::split(t, ':'))
      if (!d.empty() && d[0] == '/') out.push_back(d);
    return out;
  }
  std::vector<std::string> candidates = {"/dev/shm"};
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x == '/') candidates.push_back(x);
  return candidates;
}

ScratchBase find_scratch_base(int64_t min_free_mb) { return find_scratch_base(min_free_mb, scratch_candidates()); }

ScratchBase find_scratch_base(int64_t min_free_mb, const std::vector<std::string>& candidates) {
  std::vector<std::string> why;
  for (const auto& dir : candidates) {
    struct statfs fs;
    if (::statfs(dir.c_str(), &fs) != 0) {
      why.push_back(dir + ": " + std::strerror(errno));
      continue;
    }
    if (fs.f_type != TMPFS_MAGIC) {
      why.push_back(dir + ": not tmpfs");
      continue;
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      why.push_back(dir + ": not writable");
      continue;
    }
    int64_t free_mb = int64_t(fs.f_bavail) * int64_t(fs.f_bsize) / (1 << 20);
    if (free_mb < min_free_mb) {
      why.push_back(dir + ": " + std::to_string(free_mb) + " MiB free, scratch_min_free_mb is " +
                    std::to_string(min_free_mb));
      continue;
    }
    return {dir, "tmpfs " + dir + " (" + std::to_string(free_mb) + " MiB free)"};
  }
  return {"", "no usable tmpfs (" + util::join(why, "; ") + "); TMPDIR left as it was"};
}

std::string make_scratch(const std::string& base, std::string& note) {
  std::string templ = base + "/edashim-" + std::to_string(::getuid()) + "-" + std::to_string(::getpid()) + "-XXXXXX";
  if (!::mkdtemp(templ.data())) {  // mkdtemp creates it 0700
    note = "cannot create a scratch directory in " + base + ": " + std::strerror(errno) + "; TMPDIR left as it was";
    return "";
  }
  return templ;
}

void sweep_stale_scratch(const std::string& base) {
  DIR* d = ::opendir(base.c_str());
  if (!d) return;
  std::string prefix = "edashim-" + std::to_string(::getuid()) + "-";
  while (auto* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (!util::starts_with(name, prefix)) continue;
    long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid <= 0 || (::kill(pid_t(pid), 0) == 0 || errno == EPERM)) continue;  // owner still alive
    std::string path = base + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid()) util::remove_tree(path);
  }
  ::closedir(d);
}

}  // namespace run
