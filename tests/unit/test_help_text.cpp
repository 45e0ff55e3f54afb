// Issue 28 item 7: help and usage errors in plain words (commands/help_text.cpp).
#include <catch2/catch.hpp>

#include "commands/help_text.hpp"

TEST_CASE("Help: CLI11's type names and ranges read as words", "[cli][help]") {
  CHECK(commands::plain_type("INT:INT in [1 - 100000]") == "N, 1 to 100000");
  CHECK(commands::plain_type("INT:INT in [0 - 1000]") == "N, 0 to 1000");
  CHECK(commands::plain_type("TEXT:{disk,tmpfs}") == "disk|tmpfs");
  CHECK(commands::plain_type("FLOAT:POSITIVE") == "NUMBER > 0");
  CHECK(commands::plain_type("TEXT") == "TEXT");
  CHECK(commands::plain_type("INT") == "N");
  CHECK(commands::plain_type("FILE") == "FILE");
}

TEST_CASE("Help: an option's exclusions read as 'not with', not CLI11's 'Excludes:'", "[cli][help]") {
  CHECK(commands::plain_relations({}, {}).empty());
  CHECK(commands::plain_relations({}, {"--json", "--csv"}) == "(not with --json, --csv)");
  CHECK(commands::plain_relations({"--write"}, {"--json"}) == "(needs --write; not with --json)");
}

TEST_CASE("Help: a mistyped subcommand is named with the nearest one", "[cli][help]") {
  std::vector<std::string> names{"run", "explain", "trust", "untrust", "report", "bench", "tune", "doctor"};
  CHECK(commands::unknown_command("reprot", names) ==
        "unknown command 'reprot'; did you mean 'report'? (edashim --help lists them)");
  CHECK(commands::unknown_command("bnech", names).find("did you mean 'bench'?") != std::string::npos);
  // Nothing near: no guess.
  CHECK(commands::unknown_command("frobnicate", names) == "unknown command 'frobnicate' (edashim --help lists them)");
  // A program's name where the subcommand goes: how to run it through edashim.
  CHECK(commands::unknown_command("yosys", names, true) ==
        "unknown command 'yosys'; to run yosys through edashim: edashim run -- yosys ... "
        "(edashim --help lists the commands)");
}
