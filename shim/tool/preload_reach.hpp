#pragma once
// Whether LD_PRELOAD can reach an executable at all. ld.so never runs for a static binary, and
// drops preload paths for setuid/setgid programs and programs with file capabilities; in each
// case the tool still runs, on its own allocator, with no error anywhere.
#include <optional>
#include <string>

namespace tool {

// Why a preloaded allocator would not reach `path`, or nullopt when it would (or the file is
// a script, whose interpreter takes the preload).
std::optional<std::string> preload_blocker(const std::string& path);

// Pure: true when the ELF image (its first bytes, program headers included) has a PT_INTERP
// header. nullopt when `image` is not a complete ELF header and program header table.
std::optional<bool> elf_has_interpreter(const std::string& image);

}  // namespace tool
