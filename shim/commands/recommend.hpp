#pragma once
// `edashim report --recommend` and `edashim forget`: the log's evidence per tool and CPU model,
// the recommendation and its TOML, writing it to a file, and adopting it (learned.toml).
#include <string>
#include <vector>

#include "commands/subcommand.hpp"

namespace commands {

struct RecommendOptions {
  std::vector<std::string> logs;   // --log, repeatable (files or directories); none = the current log
  std::vector<std::string> tools;  // only these; empty = all
  std::string write;               // --write FILE: merge the adopting TOML into it
  double rss_budget = 1.10;        // --rss-budget
  bool json = false;
};

int run_recommend(const RecommendOptions& o);

Subcommand add_forget_command(CLI::App& app);

}  // namespace commands
