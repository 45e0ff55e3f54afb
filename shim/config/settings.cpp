#include "config/settings.hpp"

namespace config {

std::string Problem::str() const {
  std::string where = file;
  if (line > 0) where += ":" + std::to_string(line) + (column > 0 ? ":" + std::to_string(column) : "");
  return where + ": " + (error ? "error: " : "warning: ") + message;
}

}  // namespace config
