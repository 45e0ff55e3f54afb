#pragma once
// The options each allocator family understands, with the grammar of each value. A value from a
// profile reaches MALLOC_CONF, MIMALLOC_*, TCMALLOC_*, TBB_MALLOC_* or GLIBC_TUNABLES only after
// it matched its option's grammar (a boolean, a number in range, one of a few words, a size):
// a string pasted into MALLOC_CONF could carry ",prof:true,prof_prefix:/anywhere" with it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloc/option_value.hpp"

namespace alloc {

// Checks one option of a family against the installed version and its grammar. Returns the
// problem, if any, in words a user can act on (unknown names say the version and what to write
// instead; a bad value says what is allowed).
std::optional<std::string> check_option(const std::string& family, const std::string& version,
                                        const std::string& name, const OptionValue& value);

// Checks only the value, against the option's grammar in any version of the family: what the
// loader can check before the library (and so the version) is known. nullopt when the value
// fits, or when no version knows the name (check_option says so once the version is known).
std::optional<std::string> check_value(const std::string& family, const std::string& name, const OptionValue& value);

// Why an option is restricted (it writes files, changes the tool's exit status, aborts it, or
// can leave it without memory), or nullopt. Restricted options are ignored from an untrusted
// project file. Decided by name, so unknown names of a restricted kind (jemalloc's prof_*)
// are caught too.
std::optional<std::string> restricted_option(const std::string& family, const std::string& name);

// Whether some version of the family has the option (an untrusted project file may set no other).
bool known_option(const std::string& family, const std::string& name);

// The values of an option an untrusted project file may set: a number (a size in bytes) from
// min to max, and what a value beyond them can do. nullopt for a restricted option (none may
// be set) and for a name no version of the family has. Words and booleans the option accepts
// are all safe.
struct SafeRange {
  int64_t min = 0;
  int64_t max = 0;
  std::string why;
};
std::optional<SafeRange> untrusted_range(const std::string& family, const std::string& name);

// Why an untrusted project file may not set this option to this value (restricted_option, or a
// value outside untrusted_range), or nullopt. The user's own config keeps the option's whole
// range: the safe range is for files the user has not read.
std::optional<std::string> untrusted_refusal(const std::string& family, const std::string& name, const OptionValue& value);

// Option families, in the order tables may appear in a profile.
const std::vector<std::string>& option_families();

}  // namespace alloc
