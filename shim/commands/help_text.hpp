#pragma once
// What the CLI says about itself in plain words: option types and ranges in help ("N, 1 to
// 100000" rather than CLI11's "INT:INT in [1 - 100000]"), "not with --json" rather than
// "Excludes: --json", and "did you mean 'report'?" for a mistyped subcommand. Pure, except
// PlainFormatter, which only hands CLI11's option data to these functions.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace commands {

// CLI11's type name with its validators' descriptions appended ("INT:INT in [1 - 100000]",
// "TEXT:{disk,tmpfs}", "FLOAT:POSITIVE") as a reader says it ("N, 1 to 100000", "disk|tmpfs",
// "NUMBER > 0"). Unknown parts pass through unchanged.
std::string plain_type(const std::string& cli11_type);

// An option's constraints on others, as help's last words: "(not with --json, --csv)",
// "(needs --write)"; "" when none.
std::string plain_relations(const std::vector<std::string>& needs, const std::vector<std::string>& excludes);

// The message for a first word that is no subcommand, said as "edashim: ...": "unknown command
// 'reprot'; did you mean 'report'?" (without the question when nothing is near), naming
// `edashim --help`.
// `a_program`: `word` names a program on PATH (a tool's name where the subcommand goes).
std::string unknown_command(const std::string& word, const std::vector<std::string>& commands, bool a_program = false);

// CLI11's formatter with the option column in plain words (plain_type, plain_relations), and
// the tool in the usage line of the commands that take one after their options (run, explain).
class PlainFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
};

}  // namespace commands
