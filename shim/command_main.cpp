// The `edashim` command (edashim-cli): explain, trust, profiles, shims, doctor, report, bench,
// tune, and `run`. The shim (main.cpp) execs it when called by its own name.
#include "commands/cli.hpp"

int main(int argc, char** argv) { return commands::cli_main(argc, argv); }
