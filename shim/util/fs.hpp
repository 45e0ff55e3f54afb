#pragma once
// Filesystem helpers: thin, errno-free wrappers over common system calls.
#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace util {

// Device and inode: what makes two paths the same file, through links of either kind.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};

std::optional<FileId> file_id(const std::string& path);

// Whole file, or nullopt when it cannot be read. `limit` guards against absurd inputs.
std::optional<std::string> read_file(const std::string& path, size_t limit = 16 << 20);
// The same for a file another user may control (a script in a shared directory): read only if
// the opened file is a regular one (checked on the descriptor, so a file swapped for a FIFO
// after a stat cannot block the run: the open does not wait for a writer).
std::optional<std::string> read_regular_file(const std::string& path, size_t limit = 16 << 20);

// Writes through a temporary file and rename, so a reader never sees half a file.
bool write_file_atomic(const std::string& path, const std::string& content, mode_t mode = 0644);
// Creates `path` (mode 0600; it must not exist, not even as a link) holding `content`; no
// fsync: for a file nobody needs after a crash.
Status write_new_file(const std::string& path, const std::string& content);
// For a read-change-write of a file replaced by rename (write_file_atomic): an exclusive flock on
// PATH.lock beside it (a lock on PATH itself would be on the old file after the rename), its
// directory made first (0700). The lock, held until it goes; or why it could not be taken.
Result<Fd> lock_beside(const std::string& path);

// True when the file at `path` begins with "#!" (a script the kernel runs through the
// interpreter its first line names). Reads two bytes; never waits for a FIFO's writer.
bool starts_with_hashbang(const char* path);

bool is_regular_executable(const std::string& path);
bool is_directory(const std::string& path);

// Every NAME.toml in `dir`: NAME -> its path, sorted by name (none when `dir` cannot be read).
std::map<std::string, std::string> toml_files_in(const std::string& dir);
bool exists(const std::string& path);

// mkdir -p; true when the directory exists afterwards.
bool make_dirs(const std::string& path, mode_t mode = 0755);

// Canonical absolute path (symlinks resolved), or nullopt.
std::optional<std::string> real_path(const std::string& path);
// The canonical path of an open file (via /proc/self/fd), or nullopt.
std::optional<std::string> fd_path(int fd);

std::string dirname(const std::string& path);
std::string basename(const std::string& path);

// Absolute, canonical path of the running program (/proc/self/exe; without /proc, the path it
// was exec'd by, resolved).
std::string self_exe();

// The fields of `uid`'s line in /etc/passwd (name, password, uid, gid, gecos, home, shell), or
// empty. Read from the file itself, not with getpwuid: edashim is linked statically, and a static
// binary that loads the system's NSS modules (libnss_systemd) can crash in them. A user known
// only to LDAP or systemd has no line here.
std::vector<std::string> passwd_fields(uid_t uid);

// $HOME, or the passwd entry when HOME is unset.
std::string home_dir();

// XDG base directories with their documented defaults.
std::string xdg_config_home();
std::string xdg_state_home();
std::string xdg_cache_home();

// Removes a directory tree without following symlinks; true when nothing is left.
bool remove_tree(const std::string& path);

}  // namespace util
