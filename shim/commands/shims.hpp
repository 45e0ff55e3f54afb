#pragma once
// `edashim shims add|remove|list`: the links named after tools that make edashim stand in for
// them. Only symbolic links (or hard links) to edashim are ever created or removed here.
#include <optional>
#include <string>
#include <vector>

#include "commands/subcommand.hpp"
#include "tool/resolve.hpp"

namespace commands {

Subcommand add_shims_command(CLI::App& app);

// <prefix>/lib/edashim/shims for the running edashim at <prefix>/bin/edashim.
std::string default_shim_dir();

// The fix for links that a directory before them on PATH shadows (a tool module's bin), as fits
// the module system of this shell (tool::links_first_fix, with this tree's module files where
// they are installed), else `plain_fix`.
std::string links_first_fix_here(const std::string& plain_fix);

// Why `name` cannot be a shim link's name, or nullopt when it can.
std::optional<std::string> bad_tool_name(const std::string& name);

// What a link in `dir` should point at to reach `exe` (both absolute, canonical): relative when
// they share a directory below /, so that a prefix can be moved or packaged (DESTDIR) whole.
std::string link_target(const std::string& dir, const std::string& exe);

// True when `path` is a shim link: a symbolic link to a file named edashim (even a dangling
// one, left by a removed edashim) or to this edashim, or a hard link to this edashim.
bool is_shim_link(const std::string& path, const tool::SelfIdentity& self);

// Names of the shim links in `dir`, sorted.
std::vector<std::string> shim_links(const std::string& dir, const tool::SelfIdentity& self);

}  // namespace commands
