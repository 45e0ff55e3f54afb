#include "report/log_files.hpp"

#include <algorithm>

namespace report {

bool is_log_file_name(std::string_view name) {
  constexpr std::string_view ext = ".jsonl";
  auto at = name.rfind(ext);
  if (at == std::string_view::npos || at == 0 || name[0] == '.') return false;
  std::string_view rest = name.substr(at + ext.size());
  if (rest.empty()) return true;
  return rest.size() >= 2 && rest[0] == '.' &&
         std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> log_file_names(std::vector<std::string> entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(), [](const std::string& n) { return !is_log_file_name(n); }),
                entries.end());
  std::sort(entries.begin(), entries.end());
  return entries;
}

}  // namespace report
