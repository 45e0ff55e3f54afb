#pragma once
// Reading one config file safely: the loader and `edashim trust` read (and hash) the same bytes
// through the same checks, on one open descriptor.
#include <string>

namespace config {

struct ConfigFile {
  bool found = false;    // false: no such file (nothing else is set)
  std::string content;   // the bytes read, when neither `refused` nor `why` is set
  std::string real;      // the file's canonical path (a link's target)
  std::string refused;   // not safe to apply (owner, mode, not a regular file): skip it with a word
  std::string why;       // found but unreadable (an I/O error, too large)
  bool no_descriptor = false;  // why: no descriptor left to open it (EMFILE, ENFILE)
  bool ok() const { return found && refused.empty() && why.empty(); }
};

// Opens `path` once and checks, on that descriptor, what is then read: the owned-file rule
// (util/owned_file.hpp: a regular file with one link, the user's or root's, writable by no one
// else, in a directory no one else can write; a link followed only where only the user could
// have made it), at most 1 MiB. Trust is keyed by the link's own path (trust_key). Never
// blocks on a FIFO or a terminal.
ConfigFile read_config_file(const std::string& path);

// The path trust is pinned to: where the file was found, its directory made canonical but its
// own name kept as it is (a link is trusted as that link, not as its target). Empty when the
// directory does not exist.
std::string trust_key(const std::string& path);

}  // namespace config
