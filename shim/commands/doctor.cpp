#include "commands/doctor.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "alloc/allocators.hpp"
#include "alloc/registry.hpp"
#include "alloc/version.hpp"
#include "pipeline/plan.hpp"
#include "commands/shims.hpp"
#include "run/scratch.hpp"
#include "tool/path_order.hpp"
#include "util/fact_cache.hpp"
#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "paths/layout.hpp"
#include "util/strings.hpp"

#ifndef EDASHIM_VERSION
#define EDASHIM_VERSION "unknown"
#endif

namespace commands {
namespace {

// The command that installs allocator `name` (alloc/registry), or what to do when no package is known.
std::string install_command(const std::string& name) {
  auto package = alloc::debian_package(name);
  return package ? "sudo apt-get install " + std::string(*package) : "no package is known for '" + name + "': install it by hand";
}

class Report {
 public:
  void section(const std::string& title) { std::printf("\n%s\n", title.c_str()); }
  void ok(const std::string& text) { std::printf("  ok       %s\n", text.c_str()); }
  void note(const std::string& text) { std::printf("  note     %s\n", text.c_str()); }
  void problem(const std::string& text, const std::string& fix) {
    ++problems_;
    std::printf("  PROBLEM  %s\n", text.c_str());
    if (!fix.empty()) std::printf("           fix: %s\n", fix.c_str());
  }
  int problems() const { return problems_; }

 private:
  int problems_ = 0;
};

// Not trusting a project file, or ignoring it, is the user's choice, not a fault: a note each
// (CI steps run doctor in clones), with what it means and how to change it.
void note_trust_decisions(Report& r, const std::set<std::string>& untrusted, const std::set<std::string>& ignored) {
  for (const auto& f : untrusted)
    r.note(f + " is not trusted, so its restricted settings (library paths, [env], path, log, allocator options that "
               "write files or abort) are ignored; to use them, read it, then: edashim trust " + util::shell_quote(f) +
               " (or never use it: edashim trust --ignore " + util::shell_quote(f) + ")");
  for (const auto& f : ignored)
    r.note(f + " is ignored by your choice (edashim trust --ignore): runs skip it without a word until it changes; "
               "undo: edashim untrust " + util::shell_quote(f));
}

// Writable without creating anything: the file itself if it exists, else the nearest
// existing directory above it (the run creates what is missing below that).
bool log_writable(const std::string& path, std::string& why) {
  if (util::exists(path)) {
    if (::access(path.c_str(), W_OK) == 0) return true;
    why = path + " exists but is not writable by you";
    return false;
  }
  std::string dir = util::dirname(path);
  while (!util::exists(dir) && dir != "/" && dir != ".") dir = util::dirname(dir);
  if (!util::is_directory(dir)) {
    why = dir + " is not a directory";
    return false;
  }
  if (::access(dir.c_str(), W_OK | X_OK) == 0) return true;
  why = "cannot create files under " + dir;
  return false;
}

// What the owned-file rule (util/owned_file.hpp) would say of one of edashim's inputs: the file
// if it exists, else the nearest existing directory above it. "" when a run would accept it.
std::string owned_rule_refusal(const std::string& path, const util::SharedDirs& shared) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    auto f = util::open_owned(path, S_ISREG(st.st_mode) ? util::FileUse::read : util::FileUse::append, shared);
    if (f.ok()) ::close(f.fd);
    return f.refusal;
  }
  std::string dir = util::dirname(path);
  while (!util::exists(dir) && dir != "/" && dir != ".") dir = util::dirname(dir);
  return util::check_owned_dir(dir, shared);
}

// A directory other users can write, which the user shares on purpose: worth saying, since
// every line another user puts there is read by report and recommend (as data, checked).
bool writable_by_others(const std::string& dir) {
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH));
}

bool same_dir(const std::string& a, const std::string& b) {
  auto ia = util::file_id(a), ib = util::file_id(b);
  return ia && ib && *ia == *ib;
}

int doctor(const std::string& dir_arg) {
  Report r;
  std::string dir = dir_arg.empty() ? default_shim_dir() : dir_arg;
  // Fix commands name the directory when it is not the default one.
  auto shims_cmd = [&](const std::string& verb) {
    return "edashim shims " + verb + (dir_arg.empty() ? "" : " --dir " + util::shell_quote(dir));
  };
  const std::string& exe = paths::layout().shim;
  std::string path_env = std::getenv("PATH") ? std::getenv("PATH") : "";
  auto entries = util::split(path_env, ':');
  auto self = tool::SelfIdentity::current(std::getenv(pipeline::kChainVar));
  std::string put_first = "export PATH=" + util::shell_quote(dir) + ":\"$PATH\"   (for good: add it to ~/.bashrc; "
                          "fish: " + tool::path_line("fish", dir) + ")";
  std::printf("edashim %s at %s\n", EDASHIM_VERSION, exe.c_str());

  // ---- the shim directory and PATH
  r.section("shim directory and PATH");
  auto links = shim_links(dir, self);
  int shim_index = tool::path_index(entries, [&](const std::string& e) { return same_dir(e, dir); });
  if (!util::is_directory(dir)) {
    r.problem("no shim directory at " + dir, shims_cmd("add") + " yosys yosys-abc berkeley-abc   (or install/install.sh)");
  } else if (links.empty()) {
    r.problem(dir + " has no tool links, so no tool runs through edashim", shims_cmd("add") + " yosys yosys-abc berkeley-abc");
  } else {
    r.ok(dir + ": " + std::to_string(links.size()) + " links (" + util::join(links, ", ") + ")");
  }
  if (shim_index < 0)
    r.problem(dir + " is not on PATH, so typing a tool's name runs the plain tool", put_first);
  else
    r.ok("on PATH, entry " + std::to_string(shim_index + 1) + " of " + std::to_string(entries.size()));
  int bin_index = tool::path_index(entries, [&](const std::string& e) { return same_dir(e, util::dirname(exe)); });
  if (bin_index < 0)
    r.note("the edashim command itself is not on PATH (" + util::dirname(exe) + "); tools work regardless. "
           "To type `edashim`: export PATH=\"$PATH\":" + util::shell_quote(util::dirname(exe)));

  // ---- each linked tool: what its name runs now
  r.section("linked tools (what each name runs now)");
  if (links.empty()) r.note("none");
  for (const auto& name : links) {
    std::vector<tool::Found> found;
    std::set<std::string> seen;
    for (auto d : entries) {
      if (d.empty()) d = ".";
      if (!seen.insert(d).second) continue;
      std::string p = d + "/" + name;
      if (!util::is_regular_executable(p)) continue;
      bool ours = same_dir(d, dir);
      found.push_back({p, ours ? is_shim_link(p, self) : tool::is_edashim(p, self), ours});
    }
    // The shim itself when its directory is off PATH: what edashim would run through the link.
    auto rep = tool::analyse_order(found);
    if (rep.real.empty()) rep.real = tool::resolve(name, path_env, self).path;
    switch (rep.order) {
      case tool::Order::Ok:
        r.ok(name + " -> edashim -> " + rep.real);
        break;
      case tool::Order::NotOnPath:
        if (shim_index >= 0)
          r.problem(name + ": the link in " + dir + " does not lead to a working edashim", shims_cmd("add") + " " + name);
        else if (rep.real.empty())
          r.problem(name + ": no real " + name + " on PATH", "install it, or: " + shims_cmd("remove") + " " + name);
        else
          r.note(name + " runs " + rep.real + " directly until the shim directory is on PATH");
        break;
      case tool::Order::Shadowed:
        r.problem(name + " is shadowed: " + rep.runs_now + " comes before the shim directory on PATH, so `" + name +
                      "` bypasses edashim",
                  put_first);
        break;
      case tool::Order::OtherEdashim:
        r.problem(name + " runs another edashim link first (" + rep.runs_now + ")",
                  "remove that link (edashim shims remove --dir " + util::shell_quote(util::dirname(rep.runs_now)) + " " +
                      name + "), or put " + dir + " first: " + put_first);
        break;
      case tool::Order::NoRealTool:
        r.problem(name + ": no real " + name + " on PATH after the shim, so running it says \"command not found\"",
                  "install " + name + ", or: " + shims_cmd("remove") + " " + name);
        break;
    }
  }

  // ---- allocators
  r.section("allocator libraries");
  util::FactCache in_memory("");  // doctor writes nothing, not even the cache
  for (const auto& a : alloc::known()) {
    auto lib = alloc::locate(a, alloc::library_dirs());
    if (lib) {
      std::string v = alloc::detect_version(*lib, in_memory);
      char row[512];
      std::snprintf(row, sizeof row, "%-10s %-10s %s", a.name.c_str(), v.empty() ? "version ?" : v.c_str(), lib->c_str());
      r.ok(row);
    } else {
      r.note(a.name + ": not installed (needed only by profiles that choose it): " + install_command(a.name));
    }
  }

  // ---- configuration as a run of each linked tool from here would see it
  char cwd[4096];
  std::string here = ::getcwd(cwd, sizeof cwd) ? cwd : "?";
  r.section("configuration (as runs started in " + here + " see it)");
  auto env = pipeline::current_environment();
  paths::Files paths = paths::Files::discover();
  std::map<std::string, std::string> files;       // path -> state
  std::set<std::string> problems_seen, logs, untrusted, ignored;
  util::SharedDirs shared;  // every linked tool's shared_dirs (the user's own setting)
  bool wants_scratch = false;
  // The free space the linked tools ask for (the largest), or the default when none does.
  auto need = pipeline::scratch_need(config::Settings{});
  for (const auto& name : links) {
    pipeline::Invocation inv;
    inv.tool = name;
    inv.argv = {name};
    pipeline::select_from(inv);
    pipeline::Plan plan = pipeline::make_plan(inv, paths, env);
    const auto& s = plan.loaded.settings;
    for (const auto& f : plan.loaded.files)
      if (f.used || f.kind == "project" || !f.note.empty())
        files[f.path] = "[" + f.kind + "] " + (f.used ? "used" : "NOT used") + (f.note.empty() ? "" : ": " + f.note);
    for (const auto& p : plan.loaded.problems)
      if (problems_seen.insert(p.str()).second) {
        if (p.error) r.problem(p.str(), "edit " + p.file + (p.line ? " line " + std::to_string(p.line) : "") +
                                            " (until then the tool runs without edashim's settings)");
        else r.note(p.str());
      }
    for (const auto& f : plan.loaded.untrusted_files) untrusted.insert(f);
    ignored.insert(plan.loaded.ignored_by_choice.begin(), plan.loaded.ignored_by_choice.end());
    if (!plan.allocator_note.empty())
      r.problem(name + ": " + plan.allocator_note,
                alloc::find(s.allocator.value) ? install_command(s.allocator.value)
                                               : "fix 'allocator' in " + s.allocator.origin.str());
    else
      r.ok(name + ": allocator " + s.allocator.value +
           (plan.allocator_version.empty() ? "" : " " + plan.allocator_version) + " (from " + s.allocator.origin.str() + ")" +
           (s.scratch.value ? ", scratch on tmpfs" : ""));
    // Not a problem: the run still works and is recorded; but the user should know that the
    // allocator will not change for this tool (explain says what edashim does instead).
    if (plan.preflight.inspected && !plan.preflight.preload_reaches())
      r.note(name + ": " + plan.preflight.path + ": " + plan.preflight.reason + " (see: edashim explain " + name + ")");
    if (!plan.log_path.empty()) logs.insert(plan.log_path);
    for (const auto& d : s.shared_dirs.value)
      if (std::find(shared.dirs.begin(), shared.dirs.end(), d) == shared.dirs.end()) shared.dirs.push_back(d);
    if (s.scratch.value) {
      auto n = pipeline::scratch_need(s);
      if (!wants_scratch || n.bytes > need.bytes) need = n;
      wants_scratch = true;
    }
  }
  for (const auto& [path, state] : files) std::printf("           %s  %s\n", path.c_str(), state.c_str());
  note_trust_decisions(r, untrusted, ignored);

  // ---- scratch space and the run log
  r.section("scratch space and run log");
  auto base = run::find_scratch_base(need.bytes, need.rule);
  if (!base.dir.empty()) r.ok(base.note);
  else if (!base.refused.ok() && wants_scratch)
    r.problem(base.refused.what + ": runs go without scratch",
              base.refused.fix.empty() ? "set scratch = false in " + paths.user_file : base.refused.fix);
  else if (!base.refused.ok()) r.note(base.refused.line() + " (no linked tool asks for scratch)");
  else if (wants_scratch)
    r.problem(base.note, "sudo mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm   (or set scratch = false in " +
                             paths.user_file + ")");
  else r.note(base.note + " (no linked tool asks for scratch)");
  if (logs.empty()) r.note("run log: off");
  for (const auto& log : logs) {
    std::string why;
    if (auto refused = owned_rule_refusal(log, shared); !refused.empty())
      r.problem("run log " + log + ": runs would refuse it: " + refused,
                "point it elsewhere (log in " + paths.user_file + ", or EDASHIM_LOG=FILE)");
    else if (log_writable(log, why)) r.ok("run log " + log + " is writable");
    else r.problem("run log " + log + ": " + why, "chmod u+w " + util::shell_quote(util::dirname(log)) +
                                                       "   (or point it elsewhere: export EDASHIM_LOG=FILE, or EDASHIM_LOG=off)");
    std::string dir = util::dirname(log);
    if (shared.covers(util::real_path(dir).value_or(dir)) && writable_by_others(dir))
      r.note("run log directory " + dir + " is shared (shared_dirs): other users can add lines to it and read your runs' "
             "command lines; report and recommend take their lines as data (known allocators, checked options)");
  }
  // The other files whose writer decides what runs: the same rule, no shared directories.
  for (const auto& [what, path] : {std::pair<std::string, std::string>{"your config", paths.user_file},
                                   {"the trust store", paths.trust_file},
                                   {"the store of ignored project files", config::ignore_store_path(paths.trust_file)},
                                   {"the learned choices", paths.learned_file}})
    if (auto refused = owned_rule_refusal(path, util::SharedDirs::none()); !refused.empty())
      r.problem(what + " " + path + ": runs would refuse it: " + refused, "");

  std::printf("\n%s\n", r.problems() == 0 ? "all well"
                                          : (std::to_string(r.problems()) + (r.problems() == 1 ? " problem" : " problems") +
                                             "; each PROBLEM line above says how to fix it").c_str());
  return r.problems() == 0 ? 0 : 1;
}

}  // namespace

Subcommand add_doctor_command(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("doctor", "Check the installation: PATH order, linked tools, allocators, tmpfs, log, config");
  cmd->add_option("--dir", *dir, "Shim directory to check (default: " + default_shim_dir() + ")");
  cmd->footer(
      "Exit status 0 when all is well, 1 when any PROBLEM was found; each comes with the command that fixes it.\n"
      "Examples:\n"
      "  edashim doctor                 check this installation as seen from the current directory\n"
      "  cd myproject && edashim doctor  include the project's .edashim.toml and its trust state");
  return {cmd, [dir]() { return doctor(*dir); }};
}

}  // namespace commands
