#pragma once
namespace commands {
// `edashim SUBCOMMAND ...`
int cli_main(int argc, char** argv);
}
