#pragma once
// The options each allocator family understands, with the grammar of each value. A value from a
// profile reaches MALLOC_CONF, MIMALLOC_*, TCMALLOC_*, TBB_MALLOC_* or GLIBC_TUNABLES only after
// it matched its option's grammar (a boolean, a number in range, one of a few words, a size):
// a string pasted into MALLOC_CONF could carry ",prof:true,prof_prefix:/anywhere" with it.
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

// Option families, in the order tables may appear in a profile.
const std::vector<std::string>& option_families();

}  // namespace alloc
