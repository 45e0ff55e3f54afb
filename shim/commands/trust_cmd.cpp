#include "commands/trust_cmd.hpp"

#include <unistd.h>

#include <cstdio>

#include "config/config_file.hpp"
#include "config/load.hpp"
#include "config/trust.hpp"
#include "pipeline/plan.hpp"
#include "util/fs.hpp"

namespace commands {

int trust(const std::string& file_arg, bool untrust) {
  std::string file = file_arg;
  char cwd[4096];
  if (file.empty()) {
    auto files = config::project_files(::getcwd(cwd, sizeof cwd) ? cwd : "/");
    if (files.empty()) {
      std::fprintf(stderr, "edashim: no .edashim.toml in this directory or above it; name the file: edashim %s FILE\n",
                   untrust ? "untrust" : "trust");
      return 1;
    }
    file = files.back();
  } else if (file[0] != '/') {
    file = std::string(::getcwd(cwd, sizeof cwd) ? cwd : ".") + "/" + file;
  }
  // Trust is pinned to where the file is found (a link as that link), as the loader asks.
  std::string key = config::trust_key(file);
  if (key.empty() && untrust) key = file;  // a file whose directory is gone can still be untrusted
  if (key.empty()) {
    std::fprintf(stderr, "edashim: %s: no such directory\n", file.c_str());
    return 1;
  }
  config::TrustStore store(paths::Files::discover().trust_file);
  std::string error;
  if (untrust) {
    if (!store.untrust(key, error)) {
      // Untrusting a file that was never trusted leaves it as asked: not trusted. A script that
      // untrusts before it works on a clone must not fail for that (config/trust.cpp's wording).
      if (error == key + " was not trusted") {
        std::fprintf(stderr, "edashim: %s was not trusted: nothing to revoke\n", key.c_str());
        return 0;
      }
      std::fprintf(stderr, "edashim: %s\n", error.c_str());
      return 1;
    }
    std::fprintf(stderr, "edashim: no longer trusted: %s\n", key.c_str());
    return 0;
  }
  // The same checks the loader applies, on the descriptor whose bytes are hashed.
  auto read = config::read_config_file(key);
  if (!read.found) {
    std::fprintf(stderr, "edashim: %s: no such file\n", key.c_str());
    return 1;
  }
  if (!read.ok()) {
    std::fprintf(stderr, "edashim: %s: not trusted: %s\n", key.c_str(),
                 (read.refused.empty() ? "cannot read it: " + read.why : read.refused).c_str());
    return 1;
  }
  if (!store.trust(key, read.content, error)) {
    std::fprintf(stderr, "edashim: %s\n", error.c_str());
    return 1;
  }
  std::fprintf(stderr, "edashim: trusted %s as it is now; any edit revokes this.\n", key.c_str());
  return 0;
}

}  // namespace commands
