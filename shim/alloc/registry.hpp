#pragma once
// What edashim knows about each allocator and option family, in one table: the library files
// that are it, the package that installs them on each distribution known to have one, how its options reach it through the
// environment, where its version is written in its bytes, and the rules of its options (their
// grammar and which are restricted: alloc/options.cpp). Every other folder asks here instead
// of knowing.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloc/option_value.hpp"
#include "util/os_release.hpp"

namespace alloc {

struct OptionRules;  // alloc/option_rules.hpp

// A distribution's package of an allocator, as its package lists say (checked with apt-cache
// in each release's own root file system). An empty name: that release has none.
struct Package {
  std::string_view distribution;  // os-release ID: "debian"
  std::string_view version;       // os-release VERSION_ID: "12"
  std::string_view name;          // "libjemalloc2"; "" for none
};

// How a family's options are written into the tool's environment.
enum class Encoding {
  kVariablePerOption,  // one variable each, the prefix then the name in capitals: MIMALLOC_VERBOSE=1
  kOneVariable,        // one variable holding all: MALLOC_CONF=a:1,b:2, GLIBC_TUNABLES=glibc.malloc.a=1:...
};

// Where a library states its version.
enum class VersionProbe {
  kNone,              // nothing to read (glibc's tunables need no library of their own)
  kReturnedConstant,  // the integer a function returns (mimalloc's mi_version: 209 = 2.0.9)
  kGitDescribe,       // a git-describe string, "5.3.0-0-g<40 hex>" (jemalloc's JEMALLOC_VERSION)
  kAfterMarker,       // the digits and dots after a marker ("gperftools 2.10")
};

// One allocator, or one family of options without a library of its own (glibc).
struct Family {
  std::string_view name{};                  // as a profile writes it: allocator = "mimalloc", [mimalloc]
  std::vector<std::string_view> sonames{};  // what to preload, preferred first; never a *_debug variant
  std::string_view file_prefix{};           // a library whose file name starts so is this allocator
  std::vector<Package> packages{};          // what installs the sonames, per distribution release
  Encoding encoding = Encoding::kVariablePerOption;
  std::string_view variable{};     // kVariablePerOption: the prefix; kOneVariable: the variable
  std::string_view item_prefix{};  // kOneVariable: written before each name ("glibc.malloc.")
  char assign = '=';             // kOneVariable: name, assign, value
  char separator = ',';          // kOneVariable: between items
  bool bool_as_word = false;     // true/false rather than 1/0
  bool goes_first = false;       // mimalloc 2.0 reads only the first 256 environment entries
  VersionProbe probe = VersionProbe::kNone;
  std::string_view version_marker{};   // kReturnedConstant: the function; kAfterMarker: the marker
  std::string_view version_library{};  // when the version is in a library the preloaded one loads
  bool fallback = false;  // options applied only where the chosen allocator cannot be preloaded
  const OptionRules* options = nullptr;  // its options' grammar and restrictions (alloc/options.cpp)
};

// Every option family, in the order their tables may appear in a profile.
const std::vector<Family>& families();

// The family of that name, or nullptr: never a default for an unknown name.
const Family* find_family(std::string_view name);

// The allocator a profile names for glibc's own malloc: nothing preloaded, the "glibc" family's
// tunables configure it.
inline constexpr std::string_view kSystemAllocator = "system";

// The family whose options configure allocator `name`: "glibc" for "system", else `name`.
std::string options_family_of(std::string_view allocator);

// The family a library belongs to, by its file name ("/usr/lib/libjemalloc.so.2" -> jemalloc).
const Family* family_of_library(std::string_view path);

// Allocators edashim cannot configure but recognises in LD_PRELOAD or as serving malloc: by
// file-name prefix, "libhoard" -> "hoard".
const std::vector<std::pair<std::string_view, std::string_view>>& foreign_allocators();

// The package that installs allocator `name` on `distribution`, as the command that installs
// it ("apt-get install libjemalloc2"), or nullopt where none is known: an unknown allocator,
// one with nothing to install, a release that has none, a distribution not in the table. A
// message must then say "not known", never name another distribution's package.
std::optional<std::string> install_command(std::string_view name, const util::Distribution& distribution);

// What to tell a user whose node lacks allocator `name`, as a sentence: the package where
// `distribution` is known to have one, else that none is known there; and in every case
// library_dirs, the fix that fits any node (a directory holding the library). Pure.
std::string install_advice(std::string_view name, const util::Distribution& distribution);

// The environment variables that carry `options` to `family`, in order, "NAME" and value.
// Names are taken as given (config lowercases them); values are rendered as the family reads
// them. Pure.
std::vector<std::pair<std::string, std::string>> encode_options(
    const Family& family, const std::vector<std::pair<std::string, OptionValue>>& options);

}  // namespace alloc
