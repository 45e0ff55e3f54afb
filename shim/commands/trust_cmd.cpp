#include "commands/trust_cmd.hpp"

#include <unistd.h>

#include <memory>

#include "config/config_file.hpp"
#include "config/load.hpp"
#include "config/trust.hpp"
#include "pipeline/plan.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/voice.hpp"

namespace commands {

namespace {

// Every word of trust and untrust is said as "edashim: ...".
const util::Voice voice("edashim");

// The file the command is about: FILE made absolute, or the nearest .edashim.toml; "" after
// saying why there is none.
std::string file_of(const std::string& file_arg, const char* command) {
  char cwd[4096];
  if (file_arg.empty()) {
    auto files = config::project_files(::getcwd(cwd, sizeof cwd) ? cwd : "/");
    if (files.empty()) voice("no .edashim.toml in this directory or above it; name the file: edashim ", command, " FILE");
    return files.empty() ? "" : files.back();
  }
  if (file_arg[0] == '/') return file_arg;
  return std::string(::getcwd(cwd, sizeof cwd) ? cwd : ".") + "/" + file_arg;
}

// The old-format trust store a change set aside, if it did.
void say_set_aside(const config::TrustStore::Changed& changed) {
  if (!changed.set_aside.empty()) voice.say(config::TrustStore::set_aside_note(changed.set_aside));
}

// Untrusting a file that was never trusted (nor ignored) leaves it as asked: undecided. A script
// that untrusts before it works on a clone must not fail for that (mise trust --untrust).
int untrust(const std::string& key, config::TrustStore& trusted, config::TrustStore& ignored) {
  auto from_trusted = trusted.remove(key);
  if (!from_trusted) return voice.fail(from_trusted.error());
  say_set_aside(*from_trusted);
  auto from_ignored = ignored.remove(key);
  if (!from_ignored) return voice.fail(from_ignored.error());
  bool was_trusted = from_trusted->was_there, was_ignored = from_ignored->was_there;
  if (was_trusted) voice("no longer trusted: ", key);
  if (was_ignored) voice("no longer ignored: ", key, " (runs use its safe settings again, with a warning)");
  if (!was_trusted && !was_ignored) voice(key, " was not trusted: nothing to revoke");
  return 0;
}

}  // namespace

int trust(const std::string& file_arg, TrustAction action) {
  const char* command = action == TrustAction::untrust ? "untrust" : action == TrustAction::ignore ? "trust --ignore" : "trust";
  std::string file = file_of(file_arg, command);
  if (file.empty()) return 1;
  // Trust is pinned to where the file is found (a link as that link), as the loader asks.
  std::string key = config::trust_key(file);
  if (key.empty() && action == TrustAction::untrust) key = file;  // a file whose directory is gone can still be untrusted
  if (key.empty()) return voice.fail(file + ": no such directory");
  // Only a project's .edashim.toml is ever weighed for trust: trusting another name would
  // answer "trusted" for a file no run reads (edashim.toml without its dot, a profile).
  if (action != TrustAction::untrust && util::basename(file) != ".edashim.toml")
    return voice.fail(file + ": no run reads this file, so there is nothing to trust: a project's file is named "
                      ".edashim.toml (with the dot), in the project's directory or above the one you run in." +
                      (util::basename(file) == "edashim.toml"
                           ? " To use it: mv " + util::shell_quote(file) + " " +
                                 util::shell_quote(util::dirname(file) + "/.edashim.toml") + ", then edashim trust"
                           : " A profile you name with -p or EDASHIM_PROFILE needs no trust: it is your own choice."));
  std::string trust_file = paths::Files::discover().trust_file;
  config::TrustStore trusted(trust_file);
  config::TrustStore ignored(config::ignore_store_path(trust_file), config::Decision::ignored);
  if (action == TrustAction::untrust) return untrust(key, trusted, ignored);
  // The same checks the loader applies, on the descriptor whose bytes are hashed.
  auto read = config::read_config_file(key);
  if (!read.found) return voice.fail(key + ": no such file");
  if (!read.ok())
    return voice.fail(key + ": not " + (action == TrustAction::ignore ? "ignored" : "trusted") + ": " +
                      (read.refused.empty() ? "cannot read it: " + read.why : read.refused));
  // Trusting what no run can read would say "trusted" and leave every run saying it is broken.
  if (action == TrustAction::trust)
    if (auto broken = config::syntax_problem(key, read.content))
      return voice.fail("not trusted: " + broken->str() +
                        " (every run would say so and ignore the file); fix it, then trust it");
  // One decision per file: recording one takes back the other.
  auto& record = action == TrustAction::ignore ? ignored : trusted;
  auto& other = action == TrustAction::ignore ? trusted : ignored;
  auto taken_back = other.remove(key);
  if (!taken_back) return voice.fail(taken_back.error());
  say_set_aside(*taken_back);
  auto recorded = record.trust(key, read.content);
  if (!recorded) return voice.fail(recorded.error());
  say_set_aside(*recorded);
  bool was_other = taken_back->was_there;
  if (action == TrustAction::ignore)
    voice("ignoring ", key, " as it is now", was_other ? " (no longer trusted)" : "",
          ": runs skip it without a word; an edit asks again. Undo: edashim untrust ", util::shell_quote(key));
  else
    voice("trusted ", key, " as it is now", was_other ? " (no longer ignored)" : "", "; any edit revokes this.");
  return 0;
}

Subcommand add_trust_command(CLI::App& app, TrustAction which) {
  auto file = std::make_shared<std::string>();
  auto ignore = std::make_shared<bool>(false);
  Subcommand sub;
  if (which == TrustAction::untrust) {
    sub.app = app.add_subcommand("untrust", "Revoke trust in (or an ignore of) a project's .edashim.toml");
    sub.app->footer("Example: edashim untrust   the nearest .edashim.toml is neither trusted nor ignored again "
                    "(exit 0 if it was neither)");
    sub.run = [file] { return trust(*file, TrustAction::untrust); };
  } else {
    sub.app = app.add_subcommand("trust", "Trust a project's .edashim.toml as it is now (an edit revokes it)");
    // mise's name for direnv's deny: a decision about trust, so an option of trust, undone by untrust.
    sub.app->add_flag("--ignore", *ignore,
                      "Never use this file as it is now, and say nothing about it on runs (an edit asks again; "
                      "undo: edashim untrust)");
    sub.app->footer("Examples:\n  edashim trust                  trust the nearest .edashim.toml\n"
                    "  edashim trust --ignore         never use it, and stop its warning on runs");
    sub.run = [file, ignore] { return trust(*file, *ignore ? TrustAction::ignore : TrustAction::trust); };
  }
  sub.app->add_option("file", *file, "The file (default: the nearest .edashim.toml)");
  return sub;
}

}  // namespace commands
