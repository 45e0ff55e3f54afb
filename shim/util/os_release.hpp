#pragma once
// Which distribution this system is, as os-release(5) says: for advice that names a package
// only where that distribution is known to have it (alloc::install_advice).
#include <string>
#include <string_view>

namespace util {

struct Distribution {
  std::string id;          // ID: "debian", "rhel", "ubuntu"; "" when unknown
  std::string version_id;  // VERSION_ID: "12"; "" for a rolling release (Debian's testing)
  std::string name;        // PRETTY_NAME, for messages: "Debian GNU/Linux 12 (bookworm)"
};

// The fields of an os-release text (KEY=value lines, values optionally quoted). Pure: a value
// is only ever compared or printed, never run, so an unusual one is kept as text.
Distribution distribution_of_os_release(std::string_view text);

// This system's: /etc/os-release, else /usr/lib/os-release (the file the first links to).
// Unknown (all fields empty) when neither can be read.
Distribution this_distribution();

}  // namespace util
