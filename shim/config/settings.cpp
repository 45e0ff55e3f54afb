#include "config/settings.hpp"

namespace config {

std::string Problem::str() const {
  std::string where = file;
  if (line > 0) where += ":" + std::to_string(line) + (column > 0 ? ":" + std::to_string(column) : "");
  return where + ": " + (error ? "error: " : "warning: ") + message;
}

const char* file_kind_name(FileKind k) {
  switch (k) {
    case FileKind::shipped: return "shipped";
    case FileKind::system: return "system";
    case FileKind::user: return "user";
    case FileKind::project: return "project";
    case FileKind::profile: return "profile";
  }
  return "?";
}

}  // namespace config
