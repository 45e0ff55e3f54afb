#include "pipeline/warn_once.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <optional>

#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

#include <vector>

namespace pipeline {
namespace {

// Markers older than this are swept when a new one is made: a session rarely lasts longer,
// and one that does is warned again, which is the safe side.
constexpr time_t kMarkerDays = 7;

// /proc/PID/stat's fields after the command name, which may hold spaces and parentheses:
// [0] is the state (field 3), [1] the parent (field 4).
std::vector<std::string> words_after_name(std::string_view stat) {
  std::vector<std::string> words;
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return words;
  for (auto& f : util::split(std::string(stat.substr(close + 1)), ' '))
    if (!f.empty()) words.push_back(f);
  return words;
}

std::optional<std::string> stat_of(pid_t pid) { return util::read_file("/proc/" + std::to_string(pid) + "/stat", 4096); }

// The oldest ancestor in sight, where the session's leader is out of it (a container whose
// leader is outside its pid namespace: getsid answers 0): what started this job in the
// container (its init, or the shell `docker exec` started), the same for every step of one job.
std::string top_ancestor() {
  std::string top;
  pid_t pid = ::getpid();
  for (int depth = 0; depth < 64 && pid > 0; ++depth) {
    auto stat = stat_of(pid);
    std::string name = stat ? session_name(pid, *stat) : "";
    if (name.empty()) break;
    top = "top " + name;
    pid = parent_in_stat(*stat);
  }
  return top;
}

}  // namespace

std::string file_version(const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
         std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
}

namespace {

void sweep_old_markers(int dfd) {
  DIR* d = ::fdopendir(::dup(dfd));
  if (!d) return;
  time_t now = ::time(nullptr);
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() != 32 || name.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    struct stat st;
    if (::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && now - st.st_mtime > kMarkerDays * 86400)
      ::unlinkat(dfd, name.c_str(), 0);
  }
  ::closedir(d);
}

}  // namespace

std::string session_name(pid_t sid, std::string_view leader_stat) {
  if (sid <= 0) return "";
  // After ") ": state is field 3, so the start time (22) is the 20th from there.
  auto words = words_after_name(leader_stat);
  if (words.size() < 20) return "";
  const std::string& start = words[19];
  if (start.empty() || start.find_first_not_of("0123456789") != std::string::npos) return "";
  return std::to_string(sid) + "-" + start;
}

pid_t parent_in_stat(std::string_view stat) {
  auto words = words_after_name(stat);
  if (words.size() < 2 || words[1].empty() || words[1].size() > 9 ||
      words[1].find_first_not_of("0123456789") != std::string::npos)
    return 0;
  return static_cast<pid_t>(std::stol(words[1]));
}

std::string this_session() {
  pid_t sid = ::getsid(0);
  auto stat = sid > 0 ? stat_of(sid) : std::nullopt;
  std::string name = stat ? session_name(sid, *stat) : "";
  return name.empty() ? top_ancestor() : name;
}

std::string warning_marker_name(const std::string& file, const std::string& version, const std::string& session) {
  return util::sha256_hex(file + '\0' + version + '\0' + session).substr(0, 32);
}

std::optional<bool> first_in_session_at(const std::string& dir, const std::string& key, const std::string& version,
                                        const std::string& flow) {
  std::string session = this_session();
  if (session.empty() && !flow.empty()) session = "flow " + flow;
  if (session.empty() || version.empty() || !util::make_dirs(dir, 0700)) return std::nullopt;
  // The directory must be the user's own and private: anyone who could write it could silence
  // the warning by planting markers.
  util::Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st;
  if (!dfd || ::fstat(dfd.get(), &st) != 0 || st.st_uid != ::getuid() || (st.st_mode & 022)) return std::nullopt;
  std::string name = warning_marker_name(key, version, session);
  util::Fd marker(::openat(dfd.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!marker && errno != EEXIST) return std::nullopt;  // a read-only file system under a writable-looking dir
  if (marker) sweep_old_markers(dfd.get());
  return bool(marker);
}

}  // namespace pipeline
