#include "util/os_release.hpp"

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace util {

Distribution distribution_of_os_release(std::string_view text) {
  Distribution d;
  for (const auto& entry : split(text, '\n')) {
    std::string_view line = entry;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
    if (!value.empty() && value.back() == '\r') value.remove_suffix(1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    if (key == "ID") d.id = value;
    else if (key == "VERSION_ID") d.version_id = value;
    else if (key == "PRETTY_NAME") d.name = value;
  }
  if (d.name.empty()) d.name = d.id + (d.version_id.empty() ? "" : " " + d.version_id);
  return d;
}

Distribution this_distribution() {
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"})
    if (auto text = read_file(path, 64 << 10)) return distribution_of_os_release(*text);
  return {};
}

}  // namespace util
