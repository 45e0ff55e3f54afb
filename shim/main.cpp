// edashim: stands in for EDA tools on PATH and runs them with a better allocator, measured.
// This is the shim every tool link points to, so it holds only what a tool run needs: under
// any name but its own it is that tool (no command-line parsing); called `edashim`, it hands
// over to the `edashim` command (edashim-cli), whose option parsing, reports and benchmarks
// would otherwise cost every tool start their static initialisation and page faults.
#include <sys/auxv.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pipeline/finish.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/run_tool.hpp"
#include "run/exit_notice.hpp"
#include "run/launch.hpp"
#include "util/fs.hpp"
#include "paths/layout.hpp"

int main(int argc, char** argv) {
  // The tool's own process at its normal end, exec'd by the probe library to finish the run
  // (pipeline/finish.hpp): nothing else is done, and the process ends with the tool's status.
  if (argc == 3 && std::strcmp(argv[0], run::kFinishName) == 0)
    if (const char* dir = std::getenv(run::kFinishVar); dir && *dir == '/')
      pipeline::finish_run(dir, std::atoi(argv[1]), argv[2]);
  // Started by the exec hook (probe/hook.c) in place of a tool called by any path inside a run:
  // that path is the tool, argv[0] stays as its caller set it.
  if (const char* route = std::getenv(pipeline::kRouteVar); route && *route) {
    pipeline::Invocation inv;
    inv.explicit_path = route;
    // Routed by a [tool.NAME] path (a generic file name): that NAME's profile.
    const char* name = std::getenv(pipeline::kRouteNameVar);
    inv.tool = name && *name && !std::strchr(name, '/') ? name : util::basename(inv.explicit_path);
    inv.routed = true;
    ::unsetenv(pipeline::kRouteVar);
    ::unsetenv(pipeline::kRouteNameVar);
    inv.argv.assign(argv, argv + argc);
    if (inv.argv.empty()) inv.argv.push_back(inv.explicit_path);
    run::keep_argument_area(argc, argv);
    pipeline::select_from(inv);
    return pipeline::run_tool(inv);
  }
  // The link that was executed says which tool this is; argv[0] is the tool's, passed on as is.
  std::string name = pipeline::invoked_name(reinterpret_cast<const char*>(::getauxval(AT_EXECFN)),
                                            argc > 0 ? argv[0] : nullptr, util::starts_with_hashbang);
  if (name != "edashim") {
    pipeline::Invocation inv;
    inv.tool = name;
    inv.argv.assign(argv, argv + argc);
    run::keep_argument_area(argc, argv);  // after the copy: launch renames edashim there
    pipeline::select_from(inv);
    return pipeline::run_tool(inv);
  }
  const std::string& command = paths::layout().command;
  char* fallback[] = {const_cast<char*>("edashim"), nullptr};
  ::execv(command.c_str(), argc > 0 ? argv : fallback);
  std::string message = "edashim: cannot start the edashim command " + command + ": " + std::strerror(errno) +
                        "\n(tool links still work; reinstall edashim to get the command back)\n";
  if (::write(STDERR_FILENO, message.data(), message.size()) < 0) {
  }
  return 126;
}
