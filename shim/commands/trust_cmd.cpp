#include "commands/trust_cmd.hpp"

#include <unistd.h>

#include <cstdio>

#include "pipeline/plan.hpp"
#include "config/load.hpp"
#include "config/trust.hpp"
#include "util/fs.hpp"

namespace commands {

int trust(const std::string& file_arg, bool untrust) {
  std::string file = file_arg;
  if (file.empty()) {
    char cwd[4096];
    auto files = config::project_files(::getcwd(cwd, sizeof cwd) ? cwd : "/");
    if (files.empty()) {
      std::fprintf(stderr, "edashim: no .edashim.toml in this directory or above it; name the file: edashim %s FILE\n",
                   untrust ? "untrust" : "trust");
      return 1;
    }
    file = files.back();
  }
  auto real = util::real_path(file);
  if (!real) {
    std::fprintf(stderr, "edashim: %s: no such file\n", file.c_str());
    return 1;
  }
  config::TrustStore store(paths::Files::discover().trust_file);
  std::string error;
  if (untrust) {
    if (!store.untrust(*real, error)) {
      std::fprintf(stderr, "edashim: %s\n", error.c_str());
      return 1;
    }
    std::fprintf(stderr, "edashim: no longer trusted: %s\n", real->c_str());
    return 0;
  }
  auto content = util::read_file(*real, 1 << 20);
  if (!content) {
    std::fprintf(stderr, "edashim: cannot read %s\n", real->c_str());
    return 1;
  }
  if (!store.trust(*real, *content, error)) {
    std::fprintf(stderr, "edashim: %s\n", error.c_str());
    return 1;
  }
  std::fprintf(stderr, "edashim: trusted %s as it is now; any edit revokes this.\n", real->c_str());
  return 0;
}

}  // namespace commands
