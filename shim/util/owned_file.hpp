#pragma once
// The one rule for every file edashim reads as input or appends to (run logs, --log files,
// learned.toml, experiment directories, the trust store, config files), after OpenSSH's
// StrictModes and git's safe.directory: a file another user can change is another user's say
// in what the next run does, so it is refused unless the user named its directory as shared.
//
//   file:      opened with O_NOFOLLOW, a regular file with one link, owned by the user (or
//              root), writable by no one else;
//   directory: the one holding the file, owned by the user (or root), writable by no one else
//              unless sticky (/tmp: others cannot replace what is ours there);
//   shared:    inside a directory of `shared_dirs` (the user's own configuration), the owner
//              and mode of both are accepted; links, non-regular files and hard links are not.
//
// A symbolic link is followed only where it can only be the user's own: owned by the user or
// root in a directory no one else can write (a dotfile manager's ~/.config/edashim ->
// ~/dotfiles/edashim); its target is then held to the same rule.
#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"
#include "util/fd.hpp"

namespace util {

// Directories the user shares on purpose, canonical or not; a directory is covered when its
// canonical path is one of them or below one of them.
struct SharedDirs {
  std::vector<std::string> dirs;
  // What lets the user accept a shared directory, said after "if other users share DIR on
  // purpose, " (the caller's words: its setting and file). Empty: the file must be the user's
  // alone (the config files that list is read from, the trust store, learned.toml). Words that
  // live as long as the program (a literal): a run builds this on its way to the tool.
  std::string_view how_to_share;
  bool covers(const std::string& canonical_dir) const;
  static SharedDirs none() { return {}; }
};

// What the caller wants of the file.
enum class FileUse {
  read,           // must exist
  append,         // created (with its directory, 0700) when missing
};

// An open file that passed the rule, or why not. `refusal` is one line for the user: the file,
// its owner and mode, what is wrong and the setting or command that would make it acceptable.
struct OwnedFile {
  Fd fd;
  struct stat st {};
  bool absent = false;   // FileUse::read and no such file (nothing refused)
  std::string refusal;   // the rule refused it (fd is -1)
  std::string error;     // an I/O error (EACCES, EMFILE, ...) with strerror
  int errnum = 0;        // that error's errno
  bool ok() const { return bool(fd); }
  std::string why() const { return refusal.empty() ? error : refusal; }
};

// Opens `path` under the rule (O_CLOEXEC; O_NONBLOCK for reading, so a FIFO never hangs a run).
// `create_mode` for FileUse::append (umask applies).
OwnedFile open_owned(const std::string& path, FileUse use, const SharedDirs& shared, mode_t create_mode = 0600);

// A whole file read under the rule, at most `limit` bytes (more is an error, not a cut).
struct OwnedText {
  bool absent = false;   // no such file
  std::string content;
  std::string real;      // the canonical path of what was read (a link's target)
  struct stat st {};     // the file read (its owner, for callers that treat the user's own apart)
  std::string refusal;   // as OwnedFile's
  std::string error;
  int errnum = 0;
  bool ok() const { return !absent && refusal.empty() && error.empty(); }
  std::string why() const { return refusal.empty() ? error : refusal; }
};
OwnedText read_owned(const std::string& path, const SharedDirs& shared, size_t limit);

// The same rule for a directory itself (an experiment directory, a --log directory, a scratch
// base): Ok when it passes, else the refusal line. `missing_ok`: Ok for a missing directory.
Status check_owned_dir(const std::string& dir, const SharedDirs& shared, bool missing_ok = false);

// Creates `dir` (mode, parents 0700) if missing, then checks it with check_owned_dir; Ok when
// it exists afterwards and passes.
Status make_owned_dir(const std::string& dir, const SharedDirs& shared, mode_t mode = 0700);

// The rule applied to stat results already in hand (pure: unit-testable without files).
// `what` names the thing in the message ("file", "directory"); `path` is quoted in it.
// `how_to_share`: SharedDirs::how_to_share, said in the refusal when not empty.
std::string refuse_file(const std::string& path, const struct stat& st, uid_t me, bool shared,
                        std::string_view how_to_share = "");
std::string refuse_dir(const std::string& dir, const struct stat& st, uid_t me, bool shared,
                       std::string_view how_to_share = "");

// `uid` as "alice (uid 1001)", or "uid 1001" when it has no passwd entry.
std::string user_name(uid_t uid);

}  // namespace util
