#include "commands/doctor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "alloc/allocators.hpp"
#include "alloc/registry.hpp"
#include "alloc/version.hpp"
#include "config/log_path.hpp"
#include "pipeline/plan.hpp"
#include "commands/report.hpp"
#include "commands/shims.hpp"
#include "run/environment.hpp"
#include "run/scratch.hpp"
#include "tool/path_order.hpp"
#include "util/fact_cache.hpp"
#include "util/fs.hpp"
#include "util/os_release.hpp"
#include "util/owned_file.hpp"
#include "paths/layout.hpp"
#include "util/strings.hpp"

#ifndef EDASHIM_VERSION
#define EDASHIM_VERSION "unknown"
#endif

namespace commands {
namespace {

// What installs allocator `name` on this node's distribution (alloc/registry), or the fix that
// fits any node where no package is known.
std::string install_advice(const std::string& name) { return alloc::install_advice(name, util::this_distribution()); }

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

// What stops a run's log at `path`, found as a run finds it: by opening for real. Modes tell
// nothing to root and nothing of a read-only mount. The file itself is opened for appending if it
// exists (nothing written); else a file is created in the nearest existing directory (the run
// creates what is missing below it) and removed again: only that file.
struct LogCheck {
  bool writable = false;
  bool read_only_fs = false;  // statvfs says ST_RDONLY: no chmod helps
  std::string why;
};

LogCheck try_log(const std::string& path) {
  LogCheck c;
  std::string dir = util::dirname(path);
  util::Fd fd;
  if (util::exists(path)) {
    fd.reset(::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
  } else {
    while (!util::exists(dir) && dir != "/" && dir != ".") dir = util::dirname(dir);
    if (!util::is_directory(dir)) return c.why = dir + " is not a directory", c;
    std::string trial = dir + "/.edashim-doctor-" + std::to_string(::getpid());
    fd.reset(::open(trial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd) ::unlink(trial.c_str());
  }
  int err = errno;
  if (fd) return c.writable = true, c;
  struct statvfs fs;
  if (::statvfs(dir.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY)) {
    c.read_only_fs = true;
    c.why = dir + " is on a read-only file system, so no run can " + (util::exists(path) ? "append to " : "create ") + path;
  } else {
    c.why = (util::exists(path) ? path + " cannot be opened for appending: " : "cannot create files under " + dir + ": ") +
            std::strerror(err);
  }
  return c;
}

// What the owned-file rule (util/owned_file.hpp) would say of one of edashim's inputs: the file
// if it exists, else the nearest existing directory above it. "" when a run would accept it.
std::string owned_rule_refusal(const std::string& path, const util::SharedDirs& shared) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    return util::open_owned(path, S_ISREG(st.st_mode) ? util::FileUse::read : util::FileUse::append, shared).refusal;
  }
  std::string dir = util::dirname(path);
  while (!util::exists(dir) && dir != "/" && dir != ".") dir = util::dirname(dir);
  auto refused = util::check_owned_dir(dir, shared);
  return refused ? "" : refused.error();
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

// What every section looks at: the shim directory, PATH as this shell has it, and the links in
// the directory; gathered once, so that the sections agree on what they saw.
struct Scene {
  std::string dir;
  bool dir_given = false;             // --dir: then fix commands name the directory
  std::string exe;                    // the shim binary the links lead to
  std::string path_env;               // $PATH
  std::vector<std::string> entries;   // its entries, in order
  tool::SelfIdentity self;
  std::vector<std::string> links;     // the tool links in dir
  int shim_index = -1;                // dir's place on PATH (-1: not on it)
  std::string put_first;              // the fix that puts dir first on PATH
  std::string unshadow;               // the fix for a tool's bin before dir: put_first, or a module's

  std::string shims_cmd(const std::string& verb) const {
    return "edashim shims " + verb + (dir_given ? " --dir " + util::shell_quote(dir) : "");
  }
};

Scene look_around(const std::string& dir_arg) {
  Scene s;
  s.dir = dir_arg.empty() ? default_shim_dir() : dir_arg;
  s.dir_given = !dir_arg.empty();
  s.exe = paths::layout().shim;
  s.path_env = std::getenv("PATH") ? std::getenv("PATH") : "";
  s.entries = util::split(s.path_env, ':');
  s.self = tool::SelfIdentity::current(std::getenv(pipeline::kChainVar));
  s.put_first = "export PATH=" + util::shell_quote(s.dir) + ":\"$PATH\"   (for good: add it to ~/.bashrc; "
                "fish: " + tool::path_line("fish", s.dir) + ")";
  s.unshadow = links_first_fix_here(s.put_first);
  s.links = shim_links(s.dir, s.self);
  s.shim_index = tool::path_index(s.entries, [&](const std::string& e) { return same_dir(e, s.dir); });
  return s;
}

void check_shim_dir_and_path(Report& r, const Scene& s) {
  r.section("shim directory and PATH");
  if (!util::is_directory(s.dir)) {
    r.problem("no shim directory at " + s.dir, s.shims_cmd("add") + " yosys yosys-abc berkeley-abc   (or install/install.sh)");
  } else if (s.links.empty()) {
    r.problem(s.dir + " has no tool links, so no tool runs through edashim", s.shims_cmd("add") + " yosys yosys-abc berkeley-abc");
  } else {
    r.ok(s.dir + ": " + std::to_string(s.links.size()) + " links (" + util::join(s.links, ", ") + ")");
  }
  if (s.shim_index < 0)
    r.problem(s.dir + " is not on PATH, so typing a tool's name runs the plain tool", s.put_first);
  else
    r.ok("on PATH, entry " + std::to_string(s.shim_index + 1) + " of " + std::to_string(s.entries.size()));
  int bin_index = tool::path_index(s.entries, [&](const std::string& e) { return same_dir(e, util::dirname(s.exe)); });
  if (bin_index < 0)
    r.note("the edashim command itself is not on PATH (" + util::dirname(s.exe) + "); tools work regardless. "
           "To type `edashim`: export PATH=\"$PATH\":" + util::shell_quote(util::dirname(s.exe)));
}

// What typing `name` runs now: each executable of that name on PATH in order (an empty entry is
// the current directory, as in a shell), told apart as edashim or not, in the shim directory or not.
tool::OrderReport what_name_runs(const Scene& s, const std::string& name) {
  std::vector<tool::Found> found;
  std::set<std::string> seen;
  for (auto d : s.entries) {
    if (d.empty()) d = ".";
    if (!seen.insert(d).second) continue;
    std::string p = d + "/" + name;
    if (!util::is_regular_executable(p)) continue;
    bool ours = same_dir(d, s.dir);
    found.push_back({p, ours ? is_shim_link(p, s.self) : tool::is_edashim(p, s.self), ours});
  }
  // The shim itself when its directory is off PATH: what edashim would run through the link.
  auto rep = tool::analyse_order(found);
  if (rep.real.empty()) rep.real = tool::resolve(name, s.path_env, s.self).path;
  return rep;
}

void say_order(Report& r, const Scene& s, const std::string& name, const tool::OrderReport& rep) {
  switch (rep.order) {
    case tool::Order::Ok:
      r.ok(name + " -> edashim -> " + rep.real);
      break;
    case tool::Order::NotOnPath:
      if (s.shim_index >= 0)
        r.problem(name + ": the link in " + s.dir + " does not lead to a working edashim", s.shims_cmd("add") + " " + name);
      else if (rep.real.empty())
        r.problem(name + ": no real " + name + " on PATH", "install it, or: " + s.shims_cmd("remove") + " " + name);
      else
        r.note(name + " runs " + rep.real + " directly until the shim directory is on PATH");
      break;
    case tool::Order::Shadowed:
      r.problem(name + " is shadowed: " + rep.runs_now + " comes before the shim directory on PATH, so `" + name +
                    "` bypasses edashim",
                s.unshadow);
      break;
    case tool::Order::OtherEdashim:
      r.problem(name + " runs another edashim link first (" + rep.runs_now + ")",
                "remove that link (edashim shims remove --dir " + util::shell_quote(util::dirname(rep.runs_now)) + " " +
                    name + "), or put " + s.dir + " first: " + s.put_first);
      break;
    case tool::Order::NoRealTool:
      // A shared tree's link for a tool only some nodes have (docs/install.md): on a node
      // without it, the tree (read-only there) is not the user's to change, and the name says
      // "command not found" as it would without edashim.
      if (::access(s.dir.c_str(), W_OK) != 0)
        r.note(name + ": this machine has no real " + name + " on PATH; its link in " + s.dir +
               " (not yours to change) is for machines that have it; running it here says \"command not found\"");
      else
        r.problem(name + ": no real " + name + " on PATH after the shim, so running it says \"command not found\"",
                  "install " + name + ", or: " + s.shims_cmd("remove") + " " + name);
      break;
  }
}

void check_linked_tools(Report& r, const Scene& s) {
  r.section("linked tools (what each name runs now)");
  if (s.links.empty()) r.note("none");
  for (const auto& name : s.links) say_order(r, s, name, what_name_runs(s, name));
}

// ld.so splits LD_PRELOAD at spaces and colons: a library whose path holds one is left out of
// every run (run::preload_safe), which is a problem though each run goes on.
void check_preload_path(Report& r, const std::string& what, const std::string& lib, const std::string& fix) {
  if (!run::preload_safe(lib))
    r.problem(what + " " + lib + " has a space or colon in its path, which LD_PRELOAD cannot carry: runs leave it out",
              fix);
}

void check_probe_path(Report& r) {
  const std::string& probe = paths::layout().probe;
  if (!util::exists(probe)) return;
  if (run::preload_safe(probe)) r.ok("probe library " + probe + " can be preloaded (no space or colon in its path)");
  check_preload_path(r, "the probe library", probe,
                     "install edashim under a prefix whose real path has no space or colon "
                     "(install/install.sh --prefix DIR; a link to this one does not help: edashim finds it by its real path)");
}

void check_allocators(Report& r) {
  r.section("allocator libraries");
  check_probe_path(r);
  util::FactCache in_memory("");  // doctor writes nothing, not even the cache
  const std::string& own = paths::layout().own_allocators;
  if (!util::is_directory(own))
    r.note("this edashim carries no allocators of its own (built without their sources: install/allocators): runs "
           "preload the system's");
  for (const auto& a : alloc::known()) {
    if (auto found = alloc::locate_preferring_own(a, own, {})) {
      std::string v = alloc::detect_version(found->library, in_memory);
      auto library_row = [&](const std::string& lib, const std::string& whose) {
        char row[768];
        std::snprintf(row, sizeof row, "%-10s %-10s %s (%s)", a.name.c_str(), v.empty() ? "version ?" : v.c_str(),
                      lib.c_str(), whose.c_str());
        if (run::preload_safe(lib)) r.ok(row);
        check_preload_path(r, a.name, lib, "put the library where its path has neither, and name that directory in "
                                           "library_dirs");
      };
      library_row(found->library, alloc::build_in_words(found->build));
      if (found->build != alloc::kBuildEdashim) continue;
      for (const auto& [newer, floor] : alloc::builds_for_newer_glibc(found->library))
        library_row(newer, "edashim's build for glibc " + floor.substr(6) +
                               " and later: a run takes it where the tool's libc is that new");
    } else {
      r.note(a.name + ": not installed (needed only by profiles that choose it): " + install_advice(a.name));
    }
  }
}

// What the linked tools' plans hold, gathered across tools: the configuration section lists
// the files and trust decisions once, and the scratch and log section checks what they ask for.
struct Gathered {
  std::map<std::string, std::string> files;  // path -> state
  std::set<std::string> problems_seen, logs, untrusted, ignored;
  util::SharedDirs shared = config::shared_dirs({});  // every linked tool's shared_dirs (the user's own setting)
  bool wants_scratch = false;
  pipeline::ScratchNeed need;  // the free space the linked tools ask for (the largest), or the default
};

// A config problem shared by several tools' plans is said once.
void say_config_problems(Report& r, const pipeline::Plan& plan, Gathered& g) {
  for (const auto& p : plan.loaded.problems)
    if (g.problems_seen.insert(p.str()).second) {
      if (p.error) r.problem(p.str(), "edit " + p.file + (p.line ? " line " + std::to_string(p.line) : "") +
                                          " (until then the tool runs without edashim's settings)");
      else r.note(p.str());
    }
}

void say_allocator(Report& r, const std::string& name, const pipeline::Plan& plan) {
  const auto& s = plan.loaded.settings;
  if (!plan.allocator_note.empty())
    r.problem(name + ": " + plan.allocator_note,
              alloc::find(s.allocator.value) ? install_advice(s.allocator.value)
                                             : "fix 'allocator' in " + s.allocator.origin.str());
  else
    r.ok(name + ": allocator " + s.allocator.value +
         (plan.allocator_version.empty() ? "" : " " + plan.allocator_version) + " (from " + s.allocator.origin.str() + ")" +
         (s.scratch.value ? ", scratch on tmpfs" : ""));
  // Not a problem: the run still works and is recorded; but the user should know that the
  // allocator will not change for this tool (explain says what edashim does instead).
  if (auto note = pipeline::unsafe_preload_note(plan); !note.empty()) r.note(name + ": " + note);
  if (plan.preflight.inspected && !plan.preflight.preload_reaches())
    r.note(name + ": " + plan.preflight.path + ": " + plan.preflight.reason + " (see: edashim explain " + name + ")");
}

// The files, trust decisions, log, shared directories and scratch need of one tool's plan.
void gather(const pipeline::Plan& plan, Gathered& g) {
  const auto& s = plan.loaded.settings;
  for (const auto& f : plan.loaded.files)
    if (f.used || f.kind == config::FileKind::project || !f.note.empty())
      g.files[f.path] = "[" + std::string(config::file_kind_name(f.kind)) + "] " + (f.used ? "used" : "NOT used") + (f.note.empty() ? "" : ": " + f.note);
  for (const auto& f : plan.loaded.untrusted_files) g.untrusted.insert(f);
  g.ignored.insert(plan.loaded.ignored_by_choice.begin(), plan.loaded.ignored_by_choice.end());
  if (!plan.log_path.empty()) g.logs.insert(plan.log_path);
  for (const auto& d : s.shared_dirs.value)
    if (std::find(g.shared.dirs.begin(), g.shared.dirs.end(), d) == g.shared.dirs.end()) g.shared.dirs.push_back(d);
  if (s.scratch.value) {
    auto n = pipeline::scratch_need(s);
    if (!g.wants_scratch || n.bytes > g.need.bytes) g.need = n;
    g.wants_scratch = true;
  }
}

// The configuration as a run of each linked tool started here would see it: each tool's plan,
// made as a run makes it.
Gathered check_configuration(Report& r, const Scene& scene, const paths::Files& paths) {
  char cwd[4096];
  std::string here = ::getcwd(cwd, sizeof cwd) ? cwd : "?";
  r.section("configuration (as runs started in " + here + " see it)");
  auto env = pipeline::current_environment();
  Gathered g;
  g.need = pipeline::scratch_need(config::Settings{});
  for (const auto& name : scene.links) {
    pipeline::Invocation inv;
    inv.tool = name;
    inv.argv = {name};
    pipeline::select_from(inv);
    pipeline::Plan plan = pipeline::make_plan(inv, paths, env);
    say_config_problems(r, plan, g);
    say_allocator(r, name, plan);
    gather(plan, g);
  }
  for (const auto& [path, state] : g.files) std::printf("           %s  %s\n", path.c_str(), state.c_str());
  note_trust_decisions(r, g.untrusted, g.ignored);
  return g;
}

void check_scratch(Report& r, const Gathered& g, const paths::Files& paths) {
  auto base = run::find_scratch_base(g.need.bytes, g.need.rule);
  if (!base.dir.empty()) r.ok(base.note);
  else if (!base.refused.ok() && g.wants_scratch)
    r.problem(base.refused.what + ": runs go without scratch",
              base.refused.fix.empty() ? "set scratch = false in " + paths.user_file : base.refused.fix);
  else if (!base.refused.ok()) r.note(base.refused.line() + " (no linked tool asks for scratch)");
  else if (g.wants_scratch)
    r.problem(base.note, "sudo mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm   (or set scratch = false in " +
                             paths.user_file + ")");
  else r.note(base.note + " (no linked tool asks for scratch)");
}

// What edashim told the runs in `log` (pipeline/notices.hpp), kept off the tools' stderr: the
// words a terminal would have shown once a session.
void note_notices(Report& r, const std::string& log, const util::SharedDirs& shared) {
  ReadStats st;
  if (!util::exists(log) || !scan_log(log, shared, [](const runlog::RunRecord&) {}, st)) return;
  for (const auto& line : notice_lines(st, 8)) r.note("edashim told " + line);
}

void check_run_logs(Report& r, const Gathered& g, const paths::Files& paths) {
  if (g.logs.empty()) r.note("run log: off");
  for (const auto& log : g.logs) {
    std::string elsewhere = "export EDASHIM_LOG=FILE, or log = \"FILE\" in " + paths.user_file + " (or EDASHIM_LOG=off)";
    if (auto impossible = config::log_path_impossible(log); !impossible.empty()) {
      r.problem("run log " + impossible, "another log path: " + elsewhere);
    } else if (auto refused = owned_rule_refusal(log, g.shared); !refused.empty()) {
      r.problem("run log " + log + ": runs would refuse it: " + refused,
                "point it elsewhere (log in " + paths.user_file + ", or EDASHIM_LOG=FILE)");
    } else if (auto tried = try_log(log); tried.writable) {
      r.ok("run log " + log + " is writable (a file was opened there for real)");
      note_notices(r, log, g.shared);
    } else if (tried.read_only_fs) {
      r.problem("run log " + log + ": " + tried.why, "another log path (a chmod cannot help): " + elsewhere);
    } else {
      r.problem("run log " + log + ": " + tried.why, "chmod u+w " + util::shell_quote(util::dirname(log)) +
                                                         "   (or another log path: " + elsewhere + ")");
    }
    std::string dir = util::dirname(log);
    if (g.shared.covers(util::real_path(dir).value_or(dir)) && writable_by_others(dir))
      r.note("run log directory " + dir + " is shared (shared_dirs): other users can add lines to it and read your runs' "
             "command lines; report and recommend take their lines as data (known allocators, checked options)");
  }
}

// The other files whose writer decides what runs: the same rule, no shared directories.
void check_owned_inputs(Report& r, const paths::Files& paths) {
  for (const auto& [what, path] : {std::pair<std::string, std::string>{"your config", paths.user_file},
                                   {"the trust store", paths.trust_file},
                                   {"the store of ignored project files", config::ignore_store_path(paths.trust_file)},
                                   {"the learned choices", paths.learned_file}})
    if (auto refused = owned_rule_refusal(path, util::SharedDirs::none()); !refused.empty())
      r.problem(what + " " + path + ": runs would refuse it: " + refused, "");
}

// The passes of doctor, in the order of its report: PATH, the tools behind the links, the
// allocators, the configuration each tool's run would load, then what that configuration asks
// of the machine (scratch space, a writable log) and the files a run must own.
// Exec in place: the tool's own process finishes its run at its end by exec'ing edashim's shim
// (pipeline/finish.hpp); a shim it cannot execute leaves every run's end untold.
void check_run_mode(Report& r) {
  if (const char* sw = std::getenv("EDASHIM"); sw && *sw && !util::parse_switch(sw))
    r.problem("EDASHIM=" + util::shell_quote(sw) + " is not a clear on/off value: every run goes without edashim",
              "export EDASHIM=on (or EDASHIM=off to mean it)");
  const std::string& shim = paths::layout().shim;
  if (::access(shim.c_str(), X_OK) != 0)
    r.problem("a tool's process cannot finish its run: " + shim + " cannot be executed (" + std::strerror(errno) +
                  "); each run's line would say it ended without a word",
              "reinstall edashim (install/install.sh)");
  else
    r.ok("tools run in edashim's place, nothing of edashim's beside them (supervise = true in your config keeps "
         "edashim as their parent)");
}

int doctor(const std::string& dir_arg) {
  Report r;
  Scene scene = look_around(dir_arg);
  std::printf("edashim %s at %s\n", EDASHIM_VERSION, scene.exe.c_str());
  check_shim_dir_and_path(r, scene);
  check_linked_tools(r, scene);
  check_allocators(r);
  paths::Files paths = paths::Files::discover();
  Gathered gathered = check_configuration(r, scene, paths);
  r.section("scratch space and run log");
  check_scratch(r, gathered, paths);
  check_run_logs(r, gathered, paths);
  check_owned_inputs(r, paths);
  check_run_mode(r);
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
