#include "config/log_path.hpp"

namespace config {

std::string log_placeholder_problem(std::string_view value, std::string_view setting) {
  if (value.find_first_of("{}") == std::string_view::npos) return "";  // the usual case: no message built
  const std::string in = " in " + std::string(setting);
  const std::string one = "; the one placeholder is {host} (this machine's name)";
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '}')
      return "a '}'" + in + " that closes no placeholder" + one;
    if (value[i] != '{') continue;
    std::size_t close = value.find('}', i);
    std::size_t reopen = value.find('{', i + 1);
    if (close == std::string_view::npos || reopen < close)
      return "a '{'" + in + " that opens no placeholder" + one + ", e.g. \"/shared/edashim-logs/{host}.jsonl\"";
    std::string_view name = value.substr(i, close - i + 1);
    if (name != kHostPlaceholder)
      return "unknown placeholder " + std::string(name) + in + one + ", e.g. \"/shared/edashim-logs/{host}.jsonl\"";
    i = close;
  }
  return "";
}

bool names_host(std::string_view value) { return value.find(kHostPlaceholder) != std::string_view::npos; }

std::string safe_host_name(std::string_view raw) {
  if (raw.empty()) return "unknown-host";
  std::string out(raw);
  for (std::size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (c == '.') plain = i > 0 && raw[i - 1] != '.';
    if (!plain) out[i] = '_';
  }
  return out;
}

std::string expand_log_path(std::string_view value, std::string_view host) {
  std::string out;
  std::string safe;
  std::size_t from = 0;
  for (std::size_t at; (at = value.find(kHostPlaceholder, from)) != std::string_view::npos; from = at + kHostPlaceholder.size()) {
    if (safe.empty()) safe = safe_host_name(host);
    out.append(value.substr(from, at - from)).append(safe);
  }
  return out.append(value.substr(from));
}

std::string log_path_impossible(std::string_view path) {
  for (std::string_view fs : {"/proc", "/sys"})
    if (path == fs || (path.starts_with(fs) && path[fs.size()] == '/'))
      return std::string(path) + " is under " + std::string(fs) + ", the kernel's own file system: no file can be "
             "created there, so no run could log";
  return "";
}

}  // namespace config
