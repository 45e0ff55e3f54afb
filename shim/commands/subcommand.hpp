#pragma once
// A subcommand registered on the CLI by the file that implements it, so that cli.cpp only
// wires: `Subcommand s = add_X_command(app);` before parsing, `if (*s.app) return s.run();` after.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace commands {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;  // called only when this subcommand was chosen
  // Takes a command (bench, tune): the words after the first `--` are appended here, unparsed.
  std::vector<std::string>* command = nullptr;
};

}  // namespace commands
