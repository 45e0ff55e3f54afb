// edashim: stands in for EDA tools on PATH and runs them with a better allocator, measured.
// Under any name but its own it is that tool (the fast path, no command-line parsing);
// as `edashim` it is the command that explains, trusts and manages.
#include <cstdlib>
#include <string>
#include <vector>

#include "commands/cli.hpp"
#include "commands/run_tool.hpp"
#include "util/fs.hpp"

int main(int argc, char** argv) {
  std::string name = util::basename(argc > 0 ? argv[0] : "edashim");
  if (name != "edashim") {
    commands::Invocation inv;
    inv.tool = name;
    inv.argv.assign(argv, argv + argc);
    if (const char* p = std::getenv("EDASHIM_PROFILE"); p && *p) {
      inv.profile = p;
      inv.profile_origin = "EDASHIM_PROFILE";
    }
    if (const char* a = std::getenv("EDASHIM_ALLOCATOR"); a && *a) {
      inv.allocator = a;
      inv.allocator_origin = "EDASHIM_ALLOCATOR";
    }
    return commands::run_tool(inv);
  }
  return commands::cli_main(argc, argv);
}
