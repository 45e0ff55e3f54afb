// edashim: stands in for EDA tools on PATH and runs them with a better allocator, measured.
// Under any name but its own it is that tool (the fast path, no command-line parsing);
// as `edashim` it is the command that explains, trusts and manages.
#include <cstdlib>
#include <string>
#include <vector>

#include "commands/cli.hpp"
#include "commands/plan.hpp"
#include "commands/run_tool.hpp"
#include "util/fs.hpp"

int main(int argc, char** argv) {
  std::string name = util::basename(argc > 0 ? argv[0] : "edashim");
  if (name != "edashim") {
    commands::Invocation inv;
    inv.tool = name;
    inv.argv.assign(argv, argv + argc);
    commands::select_from(inv);
    return commands::run_tool(inv);
  }
  return commands::cli_main(argc, argv);
}
