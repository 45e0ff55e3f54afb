#pragma once
// What edashim knows about each allocator: where its library is, its version, its options.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/options.hpp"  // the options each allocator takes

namespace alloc {

struct Allocator {
  std::string name;                  // as written in a profile: "mimalloc"
  std::string family;                // the options table that configures it: "[mimalloc]"
  std::vector<std::string> sonames;  // preferred first; never a *_debug variant
};

const std::vector<Allocator>& known();
const Allocator* find(std::string_view name);
std::vector<std::string> known_names();  // including "system"

// Directories searched for allocator libraries: absolute paths fixed at build time (the
// install libdir and the multiarch directories), then the usual ones, then ld.so.conf.d
// entries; never a directory derived from where edashim was started. A library elsewhere is
// named by its absolute path in a trusted file (allocator = "/path/libx.so").
const std::vector<std::string>& library_dirs();

// First existing library for `a` in `dirs`.
std::optional<std::string> locate(const Allocator& a, const std::vector<std::string>& dirs);

// True when `path` (as found in LD_PRELOAD) is a known allocator library, by file name.
bool is_allocator_library(std::string_view path);

// The allocator a library path belongs to, by file name ("" when none).
std::string allocator_of_library(std::string_view path);

// What allocator_of_library goes by, in its order: file-name prefix, allocator ("libjemalloc",
// "jemalloc"). The probe's finish gets it in the run's record (pipeline/unfinished.hpp).
std::vector<std::pair<std::string, std::string>> allocator_file_prefixes();

// Version as far as the library's real file name tells it ("2.0" for libmimalloc.so.2.0).
std::string version_of(const std::string& library_path);

}  // namespace alloc
