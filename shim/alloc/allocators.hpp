#pragma once
// What edashim knows about each allocator: where its library is, its version, its options.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/option_value.hpp"

namespace alloc {

struct Allocator {
  std::string name;                  // as written in a profile: "mimalloc"
  std::string family;                // the options table that configures it: "[mimalloc]"
  std::vector<std::string> sonames;  // preferred first; never a *_debug variant
};

const std::vector<Allocator>& known();
const Allocator* find(std::string_view name);
std::vector<std::string> known_names();  // including "system"

// Directories searched for allocator libraries: libc's own directory first, then the usual
// multiarch and /usr/local ones, then ld.so.conf.d entries. Other distributions put the
// libraries elsewhere, so nothing here is a single hard-coded path.
const std::vector<std::string>& library_dirs();

// First existing library for `a` in `dirs`.
std::optional<std::string> locate(const Allocator& a, const std::vector<std::string>& dirs);

// True when `path` (as found in LD_PRELOAD) is a known allocator library, by file name.
bool is_allocator_library(std::string_view path);

// The allocator a library path belongs to, by file name ("" when none).
std::string allocator_of_library(std::string_view path);

// Version as far as the library's real file name tells it ("2.0" for libmimalloc.so.2.0).
std::string version_of(const std::string& library_path);

// Checks one option of a family against the installed version. Returns the problem, if any,
// in words a user can act on (unknown names say the version and what to write instead).
std::optional<std::string> check_option(const std::string& family, const std::string& version,
                                        const std::string& name, const OptionValue& value);

// Option families, in the order tables may appear in a profile.
const std::vector<std::string>& option_families();

}  // namespace alloc
