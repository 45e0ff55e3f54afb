#include "config/config_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"

namespace config {

ConfigFile read_config_file(const std::string& path) {
  ConfigFile out;
  // Every config file is held to the one rule for edashim's inputs (util/owned_file.hpp): no
  // shared directories here, since the list of them is itself read from these files.
  auto text = util::read_owned(path, util::SharedDirs::none(), size_t(1) << 20);
  if (text.absent) return out;
  out.found = true;
  if (!text.refusal.empty()) out.refused = text.refusal;
  else if (!text.error.empty()) {
    out.why = text.errnum == EFBIG ? "larger than 1 MiB" : text.error;
    out.no_descriptor = text.errnum == EMFILE || text.errnum == ENFILE;
  } else {
    out.content = std::move(text.content);
    out.real = std::move(text.real);
  }
  return out;
}

std::string trust_key(const std::string& path) {
  std::string dir = util::dirname(path), base = util::basename(path);
  auto real_dir = util::real_path(dir.empty() ? "." : dir);
  if (!real_dir || base.empty() || base == "." || base == "..") return "";
  return (*real_dir == "/" ? "" : *real_dir) + "/" + base;
}

}  // namespace config
