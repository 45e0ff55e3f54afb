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

// Whose build a preloaded library is, as the run log, explain and doctor say it.
inline constexpr std::string_view kBuildEdashim = "edashim";            // edashim's own (install/allocators)
inline constexpr std::string_view kBuildLibraryDirs = "library_dirs";  // found in the setting's directories
inline constexpr std::string_view kBuildSystem = "system";              // the machine's own
inline constexpr std::string_view kBuildPath = "path";                  // named by its path (allocator = "/...")

// In words, for explain and doctor: "edashim's build", "from library_dirs", "the system's".
std::string build_in_words(std::string_view build);

struct Located {
  std::string library;
  std::string_view build;  // one of the kBuild* above
};

// The library a run preloads for `a`: edashim's own build (in `own_dir`) first, then the
// directories of the library_dirs setting, then the system's (library_dirs() and ld.so.conf);
// nullopt when none has it.
std::optional<Located> locate_preferring_own(const Allocator& a, const std::string& own_dir,
                                              const std::vector<std::string>& setting_dirs);

// edashim's builds of the same library for a newer glibc: `library`'s directory's glibc-X.Y/
// subdirectories holding its file name (install/allocators/build.sh makes them; the name is the
// build's floor). Each as (path, "GLIBC_X.Y"), in no order; empty when there are none.
std::vector<std::pair<std::string, std::string>> builds_for_newer_glibc(const std::string& library);

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
