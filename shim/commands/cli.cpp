#include "commands/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>

#include "commands/bench.hpp"
#include "commands/doctor.hpp"
#include "commands/explain.hpp"
#include "commands/help_text.hpp"
#include "commands/profiles_cmd.hpp"
#include "commands/recommend.hpp"
#include "commands/report.hpp"
#include "pipeline/run_tool.hpp"
#include "commands/shims.hpp"
#include "commands/trust_cmd.hpp"
#include "commands/tune.hpp"
#include "tool/resolve.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/voice.hpp"

#ifndef EDASHIM_VERSION
#define EDASHIM_VERSION "unknown"
#endif

namespace commands {
namespace {

pipeline::Invocation invocation_for(const std::vector<std::string>& command) {
  pipeline::Invocation inv;
  inv.tool = util::basename(command.front());
  inv.argv = command;
  if (command.front().find('/') != std::string::npos) inv.explicit_path = command.front();
  return inv;
}

// hyperfine's options with no counterpart under that name, and what to write instead.
const char* hyperfine_counterpart(const std::string& option) {
  if (option == "--max-runs" || option == "-M") return "bench runs a fixed number of rounds: -r/--runs N";
  if (option == "--shell" || option == "-S")
    return "bench runs the command's words without a shell (hyperfine's -N): leave it out, or put sh -c 'COMMAND' after --";
  return nullptr;
}

// What an unexpected option should have been: the subcommand's nearest option, or hyperfine's
// counterpart. "" when there is nothing to say.
std::string option_hint(CLI::App& app, const std::string& sub, const std::string& word) {
  if (const char* h = hyperfine_counterpart(word.substr(0, word.find('=')))) return word + ": " + h;
  if (word.size() < 3 || word[1] != '-') return "";  // -q is one letter from every short option: no guess
  std::vector<std::string> names;
  for (const auto* o : app.get_subcommand(sub)->get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
  }
  if (auto near = util::nearest(word.substr(0, word.find('=')), names)) return word + ": did you mean " + *near + "?";
  return "";
}

// --help and --version end with 0; every usage error with 2, as the man page says (CLI11's own
// codes, 105-115, would read as "killed by a signal" to some scripts). `dashes`: the command
// line had `--` (what follows it was never parsed as ours).
int usage_error(CLI::App& app, const CLI::ParseError& e, const std::string& sub, bool dashes) {
  if (e.get_exit_code() == 0) return app.exit(e) == 0 ? 0 : 2;  // --help, --version: printed as asked
  // Said as every other word of edashim's: who speaks, what is wrong (CLI11's words), then the
  // hints, then where the options are listed.
  bool top = sub.empty() || sub[0] == '-';
  const util::Voice voice(top ? "edashim" : "edashim " + sub);
  std::string what = e.what();
  if (top && dynamic_cast<const CLI::RequiredError*>(&e)) {
    // The first word is an option edashim does not have (--verison): CLI11 only says that a
    // subcommand is required.
    auto near = util::nearest(sub, {"--help", "--version"});
    what = "unknown option " + sub + (near ? "; did you mean " + *near + "?" : "");
  } else if (!top && dynamic_cast<const CLI::RequiredError*>(&e)) {
    // A command of commands (shims) given none, or one it lacks: name the ones it has.
    std::vector<std::string> names;
    for (const auto* cmd : app.get_subcommands({}))
      if (cmd->get_name() == sub)
        for (const auto* c : cmd->get_subcommands({})) names.push_back(c->get_name());
    if (!names.empty()) what = "which one: " + util::join(names, ", ") + "?";
  }
  voice.say(what);
  if (!top && dynamic_cast<const CLI::ExtrasError*>(&e)) {
    // CLI11 names them after the message's colon, separated by spaces.
    std::string what = e.what();
    auto colon = what.find(": ");
    bool unexplained = false;
    for (const auto& w : util::split(colon == std::string::npos ? "" : what.substr(colon + 2), ' ')) {
      if (w.empty()) continue;
      if (auto hint = w[0] == '-' ? option_hint(app, sub, w) : ""; !hint.empty())
        voice.say(hint);
      else
        unexplained = true;
    }
    // The usual cause with bench and tune: the tool's own options read as ours.
    if ((sub == "bench" || sub == "tune") && !dashes && unexplained)
      voice("put -- before the tool's command, so that its options stay its own: edashim ", sub, " ",
            sub == "tune" ? "--option mimalloc.eager_commit_delay=0,4" : "-p baseline -p jemalloc", " -- TOOL ARGS...");
  }
  return voice.fail("see " + voice.who() + " --help for its options", 2);
}

// The top-level help's examples, one per subcommand worth knowing first.
std::string global_examples() {
  return
      "Examples:\n"
      "  edashim run -- yosys -p 'synth -top top' design.v   run yosys through its profile\n"
      "  edashim run --allocator jemalloc -- yosys -s flow.ys try another allocator once\n"
      "  edashim explain yosys                              what a yosys run would use, and why\n"
      "  edashim trust                                      trust the nearest .edashim.toml\n"
      "  edashim doctor                                     check the installation; each problem comes with its fix\n"
      "  edashim shims list                                 the tools edashim stands in for, and the real ones\n"
      "  edashim shims add vpr yices                        stand in for two more tools\n"
      "  edashim bench -p baseline -p jemalloc -n 30 -- yosys ...  compare profiles, with statistics and a plot\n"
      "  edashim report --tool yosys --since 7d             runs, medians and time ratios from the run log\n"
      "  edashim tune --option mimalloc.eager_commit_delay=0,1,4 -- yosys ...  sweep allocator options\n"
      "  edashim SUBCOMMAND --help                          more on one subcommand\n"
      "  EDASHIM=off yosys ...                              the plain tool, untouched";
}

// A mistyped subcommand: CLI11 would say "A subcommand is required", which hides the typo.
// Options (--help, --version) are CLI11's to judge.
bool known_command(const CLI::App& app, const std::string& first) {
  if (!first.empty() && first[0] == '-') return true;
  std::vector<std::string> names;
  for (const auto* s : app.get_subcommands({})) names.push_back(s->get_name());
  if (std::find(names.begin(), names.end(), first) != names.end()) return true;
  const char* path = std::getenv("PATH");
  bool a_program = first.find('/') == std::string::npos &&
                   !tool::resolve(first, path ? path : "", tool::SelfIdentity::current(nullptr)).path.empty();
  util::Voice("edashim").say(unknown_command(first, names, a_program));
  return false;
}

// The options of run and explain, filled in by CLI11 while parsing (one is chosen, so they share).
struct ToolOptions {
  std::string profile, allocator;
  bool strict = false;
};

// Each subcommand's handle: after parsing, it tells which one the command line chose.
struct Subcommands {
  CLI::App* run = nullptr;
  CLI::App* explain = nullptr;
  CLI::App* profiles = nullptr;
  Subcommand trust, untrust, shims, doctor, report, forget, bench, tune;
};

CLI::App* add_run_command(CLI::App& app, ToolOptions& options) {
  auto* run = app.add_subcommand("run", "Run a tool through its profile (as its shim link would)");
  run->add_option("-p,--profile", options.profile, "Named profile or profile file (default: $EDASHIM_PROFILE)");
  run->add_option("-a,--allocator", options.allocator, "mimalloc, jemalloc, tcmalloc, tbbmalloc, system, or a library path");
  run->add_flag("--strict", options.strict, "Stop with status 2 on a configuration error instead of running the plain tool");
  // Everything from the first word that is not an option of ours is the tool's command line,
  // so `edashim run yosys -q ...` needs no `--`.
  run->prefix_command();
  run->footer("Example: edashim run -p jemalloc -- yosys -q -p 'synth -top top' top.v");
  return run;
}

CLI::App* add_explain_command(CLI::App& app, ToolOptions& options) {
  auto* explain_cmd = app.add_subcommand("explain", "Show what a run would use and where each setting came from; runs nothing");
  explain_cmd->add_option("-p,--profile", options.profile, "Named profile or profile file");
  explain_cmd->add_option("-a,--allocator", options.allocator, "Allocator to explain instead of the configured one");
  explain_cmd->prefix_command();
  explain_cmd->footer("Example: edashim explain yosys");
  return explain_cmd;
}

// The order they are added in is the order --help lists them.
Subcommands add_subcommands(CLI::App& app, ToolOptions& options) {
  Subcommands s;
  s.run = add_run_command(app, options);
  s.explain = add_explain_command(app, options);
  s.trust = add_trust_command(app, TrustAction::trust);
  s.profiles = app.add_subcommand("profiles", "List the named profiles that can be selected here");
  s.profiles->footer("Example: edashim profiles   (then: edashim run -p NAME -- TOOL ...)");
  s.untrust = add_trust_command(app, TrustAction::untrust);
  s.shims = add_shims_command(app);
  s.doctor = add_doctor_command(app);
  s.report = add_report_command(app);
  s.forget = add_forget_command(app);
  s.bench = add_bench_command(app);
  s.tune = add_tune_command(app);
  return s;
}

// `edashim run [options] -- TOOL ARGS`: everything after the first `--` is the tool's, never
// ours (CLI11 would otherwise look into it): returned, and cut from what CLI11 parses (argc).
// Without `--`, prefix_command() stops at TOOL.
std::vector<std::string> take_tool_command(const std::string& sub, int& argc, char** argv) {
  bool takes_command = sub == "run" || sub == "explain" || sub == "bench" || sub == "tune";
  for (int i = 2; takes_command && i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      std::vector<std::string> after_dashes(argv + i + 1, argv + argc);
      argc = i;
      return after_dashes;
    }
  }
  return {};
}

// `edashim run -- CMD`: CMD may be a flow's top (make, a flow script), which runs plain.
int run_command(const std::vector<std::string>& command, const ToolOptions& options) {
  if (command.empty()) return util::Voice("edashim run").fail("which tool? e.g. edashim run -- yosys -p 'synth' design.v", 2);
  pipeline::Invocation inv = invocation_for(command);
  pipeline::select_from(inv, options.profile, options.allocator);
  inv.strict = options.strict;
  inv.via_run = true;
  return pipeline::run_tool(inv);
}

// Explain's own option in the tool's words (`explain yosys -a mimalloc`): what CLI11 left over
// after the tool's name, without `--`. "" when there is none.
std::string explain_option_after_tool(const std::vector<std::string>& command) {
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    bool whole = a == "-a" || a == "-p" || a == "--allocator" || a == "--profile";
    bool joined = (a.size() > 2 && (a.rfind("-a", 0) == 0 || a.rfind("-p", 0) == 0) && a[2] != '-') ||
                  a.rfind("--allocator=", 0) == 0 || a.rfind("--profile=", 0) == 0;
    if (whole) return i + 1 < command.size() ? a + " " + command[i + 1] : a;
    if (joined) return a;
  }
  return "";
}

int explain_command(const std::vector<std::string>& command, const ToolOptions& options, bool dashes) {
  const util::Voice voice("edashim explain");
  if (command.empty()) return voice.fail("which tool? e.g. edashim explain yosys", 2);
  if (std::string o = dashes ? "" : explain_option_after_tool(command); !o.empty()) {
    const std::string& tool = command[0];
    voice.say_with("'" + o + "' comes after the tool's name, where it is " + tool + "'s own argument, not explain's.",
                   "  To explain with it, put it first: edashim explain " + o + " " + tool + "\n" + "  For " + tool +
                       "'s own argument, say so with --: edashim explain -- " + tool + " ...\n");
    return 2;
  }
  pipeline::Invocation inv = invocation_for(command);
  pipeline::select_from(inv, options.profile, options.allocator);
  return explain(inv);
}

// Runs the subcommand the command line chose; `after_dashes` is the tool's command when given
// after `--`, else run and explain take what CLI11 left over.
int run_chosen(Subcommands& s, const ToolOptions& options, const std::vector<std::string>& after_dashes) {
  if (*s.run) return run_command(after_dashes.empty() ? s.run->remaining() : after_dashes, options);
  if (*s.explain)
    return explain_command(after_dashes.empty() ? s.explain->remaining() : after_dashes, options, !after_dashes.empty());
  for (auto* c : {&s.shims, &s.doctor, &s.report, &s.forget})
    if (*c->app) return c->run();
  for (auto* c : {&s.bench, &s.tune})
    if (*c->app) {
      c->command->insert(c->command->end(), after_dashes.begin(), after_dashes.end());
      return c->run();
    }
  if (*s.profiles) return list_profiles();
  for (auto* c : {&s.trust, &s.untrust})
    if (*c->app) return c->run();
  return 0;
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{
      "edashim: runs EDA tools with a better allocator, locale and scratch space, and records each run.\n"
      "Installed as links named after the tools (yosys, vpr, yices ...), it is those tools."};
  app.name("edashim");  // the usage line says the command's name, not the path it was run by
  app.set_version_flag("--version", std::string("edashim ") + EDASHIM_VERSION);
  app.require_subcommand(1);
  // Before any subcommand: each takes its parent's formatter (and footer) when it is added.
  app.formatter(std::make_shared<PlainFormatter>());
  ToolOptions options;
  Subcommands subcommands = add_subcommands(app, options);
  // Set after the subcommands: each copies its parent's footer when added, and would show these as its own.
  app.footer(global_examples());
  // `edashim` alone: what it is and its commands, as --help says them (a usage error, though).
  if (argc < 2) {
    std::fprintf(stderr, "%s", app.help().c_str());
    return 2;
  }
  // `edashim help [COMMAND]` is `edashim [COMMAND] --help`, as git's and cargo's.
  std::vector<char*> help_args;
  static char help_flag[] = "--help";
  if (std::string(argv[1]) == "help" && argc <= 3) {
    help_args = {argv[0]};
    if (argc == 3) help_args.push_back(argv[2]);
    help_args.push_back(help_flag);
    help_args.push_back(nullptr);
    argc = int(help_args.size()) - 1;
    argv = help_args.data();
  }
  if (!known_command(app, argv[1])) return 2;

  std::string sub = argc > 1 ? argv[1] : "";
  int whole = argc;
  std::vector<std::string> after_dashes = take_tool_command(sub, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e, sub, argc != whole);
  }
  return run_chosen(subcommands, options, after_dashes);
}

}  // namespace commands
