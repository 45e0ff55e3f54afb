#include "commands/shims.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "pipeline/plan.hpp"
#include "tool/path_order.hpp"
#include "util/fs.hpp"
#include "paths/layout.hpp"
#include "util/strings.hpp"
#include "util/voice.hpp"

namespace commands {

std::string default_shim_dir() {
  return util::dirname(util::dirname(paths::layout().shim)) + "/lib/edashim/shims";
}

std::string links_first_fix_here(const std::string& plain_fix) {
  auto scene = tool::module_scene(std::getenv("LMOD_CMD"), std::getenv("MODULES_CMD"), std::getenv("MODULESHOME"),
                                  std::getenv("LOADEDMODULES"));
  const std::string& dir = paths::layout().modulefiles;
  return tool::links_first_fix(scene, util::is_directory(dir) ? dir : "", plain_fix);
}

std::optional<std::string> bad_tool_name(const std::string& name) {
  if (name.empty()) return "an empty name";
  if (name == "." || name == "..") return "not a file name";
  if (name.find('/') != std::string::npos) return "a tool name, not a path (write yosys, not /usr/bin/yosys)";
  // A link named edashim would make edashim run itself as a tool.
  if (name == "edashim") return "edashim's own name";
  if (name[0] == '-') return "an option, not a tool name";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "a name with control characters";
  return std::nullopt;
}

std::string link_target(const std::string& dir, const std::string& exe) {
  namespace fs = std::filesystem;
  fs::path d(dir), e(exe);
  auto di = d.begin(), ei = e.begin();
  // Relative only when the two share more than the root: /usr/lib/... and /usr/bin/... do,
  // /opt/shims and /home/u/bin/edashim do not (an absolute target reads better there).
  int common = 0;
  while (di != d.end() && ei != e.end() && *di == *ei) ++di, ++ei, ++common;
  if (common < 2) return exe;
  return e.lexically_relative(d).string();
}

bool is_shim_link(const std::string& path, const tool::SelfIdentity& self) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return false;
  if (S_ISLNK(st.st_mode)) {
    char buf[4096];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n > 0 && util::basename(std::string(buf, size_t(n))) == "edashim") return true;
    return tool::is_edashim(path, self);
  }
  return S_ISREG(st.st_mode) && self.same_file({st.st_dev, st.st_ino});
}

std::vector<std::string> shim_links(const std::string& dir, const tool::SelfIdentity& self) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (auto* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (is_shim_link(dir + "/" + name, self)) out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

const util::Voice voice("edashim shims");

struct Options {
  std::string dir;
  std::vector<std::string> names;
  bool if_found = false;
  bool all = false;
  bool names_only = false;
};

std::string path_env() {
  const char* p = std::getenv("PATH");
  return p ? p : "/usr/local/bin:/usr/bin:/bin";
}

// The real tool a name resolves to now (PATH minus edashim itself), or empty.
std::string real_tool(const std::string& name, const tool::SelfIdentity& self) {
  return tool::resolve(name, path_env(), self).path;
}

// The programs on PATH by name, for a "did you mean" (the links' own directory left out).
std::vector<std::string> names_on_path(const std::string& links_dir) {
  std::vector<std::string> names;
  for (const auto& dir : util::split(path_env(), ':')) {
    if (dir.empty() || util::real_path(dir) == util::real_path(links_dir)) continue;
    std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
    if (!d) continue;
    while (auto* e = ::readdir(d.get()))
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  }
  return names;
}

int add(const Options& o, const tool::SelfIdentity& self) {
  // Links point to the shim, even when this command runs as edashim-cli.
  const std::string& exe = paths::layout().shim;
  int status = 0, linked = 0;
  bool made_dir = false;
  for (const auto& name : o.names) {
    if (auto bad = bad_tool_name(name)) {
      voice("'", name, "' is ", *bad, "; nothing linked");
      status = 1;
      continue;
    }
    std::string real = real_tool(name, self);
    if (real.empty() && o.if_found) {
      std::printf("skipped %s: not installed (link it once it is: edashim shims add %s)\n", name.c_str(), name.c_str());
      continue;
    }
    if (!made_dir) {
      if (!util::make_dirs(o.dir)) {
        int err = errno;
        return voice.fail("cannot create " + o.dir + ": " + std::strerror(err) + " (choose another with --dir, or run as its owner)");
      }
      made_dir = true;
    }
    std::string dir = util::real_path(o.dir).value_or(o.dir);
    std::string link = o.dir + "/" + name;
    std::string target = link_target(dir, exe);
    if (util::exists(link)) {
      if (!is_shim_link(link, self)) {
        voice(link, " exists and is not a link to edashim; left alone (remove or rename it first)");
        status = 1;
        continue;
      }
      char buf[4096];
      ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
      if (n > 0 && std::string(buf, size_t(n)) == target) {
        std::printf("%s: already linked\n", name.c_str());
        continue;
      }
      // A link to an older or moved edashim: re-point it in one step (rename over it).
      std::string tmp = link + ".edashim-new";
      ::unlink(tmp.c_str());
      if (::symlink(target.c_str(), tmp.c_str()) != 0 || ::rename(tmp.c_str(), link.c_str()) != 0) {
        voice("cannot re-link ", link, ": ", std::strerror(errno));
        ::unlink(tmp.c_str());
        status = 1;
        continue;
      }
      std::printf("%s: re-linked to %s\n", name.c_str(), target.c_str());
      continue;
    }
    if (::symlink(target.c_str(), link.c_str()) != 0) {
      voice("cannot create ", link, ": ", std::strerror(errno));
      status = 1;
      continue;
    }
    if (real.empty()) {
      // Allowed (a shared tree's links for tools its nodes have), but a typo must not look linked.
      auto near = util::nearest(name, names_on_path(o.dir));
      std::printf("linked %s\n", name.c_str());
      voice("warning: no ", name, " on PATH", near ? " (did you mean " + *near + "?)" : std::string(),
            ": until one is installed, running ", name, " says \"command not found\". A mistake? edashim shims remove ", name);
    } else
      std::printf("linked %s -> edashim -> %s\n", name.c_str(), real.c_str());
    ++linked;
  }
  // A shell remembers where it found a command (bash's hash, zsh's and tcsh's tables): until it
  // forgets, typing the name in a shell already running still runs the tool it found before.
  if (linked)
    std::printf("a shell already running may still run the plain tool%s until it forgets where it found it: "
                "hash -r (bash, zsh), rehash (tcsh, csh, zsh); new shells take the link\n",
                linked > 1 ? "s" : "");
  return status;
}

int remove(const Options& o, const tool::SelfIdentity& self) {
  std::vector<std::string> names = o.names;
  if (o.all) names = shim_links(o.dir, self);
  int status = 0;
  for (const auto& name : names) {
    if (auto bad = bad_tool_name(name)) {
      voice("'", name, "' is ", *bad);
      status = 1;
      continue;
    }
    std::string link = o.dir + "/" + name;
    if (!util::exists(link)) {
      voice("no link named ", name, " in ", o.dir, " (see: edashim shims list)");
      status = 1;
      continue;
    }
    if (!is_shim_link(link, self)) {
      voice(link, " is not a link to edashim; left alone");
      status = 1;
      continue;
    }
    if (::unlink(link.c_str()) != 0) {
      voice("cannot remove ", link, ": ", std::strerror(errno));
      status = 1;
      continue;
    }
    std::printf("removed %s (now `%s` runs the plain tool)\n", name.c_str(), name.c_str());
  }
  return status;
}

int list(const Options& o, const tool::SelfIdentity& self) {
  if (!util::is_directory(o.dir)) {
    if (!o.names_only)
      voice("no shim directory at ", o.dir, " yet (create it with: edashim shims add yosys)");
    return 0;
  }
  auto names = shim_links(o.dir, self);
  if (o.names_only) {
    for (const auto& n : names) std::printf("%s\n", n.c_str());
    return 0;
  }
  std::printf("shim directory: %s\n", o.dir.c_str());
  if (names.empty()) std::printf("  (no links; add some: edashim shims add yosys yosys-abc)\n");
  size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (const auto& n : names) {
    std::string real = real_tool(n, self);
    std::printf("  %-*s  %s\n", int(width), n.c_str(),
                real.empty() ? ("no real " + n + " on PATH (install it, or: edashim shims remove " + n + ")").c_str()
                             : ("-> " + real).c_str());
  }
  return 0;
}

}  // namespace

Subcommand add_shims_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* shims = app.add_subcommand("shims", "Add, remove or list the links that make edashim stand in for tools");
  shims->require_subcommand(1);
  shims->footer(
      "The shim directory must come before the real tools on PATH (edashim doctor checks).\n"
      "Examples:\n"
      "  edashim shims list                     each link and the real tool it runs now\n"
      "  edashim shims add yosys yosys-abc      run these through edashim from now on\n"
      "  edashim shims remove yosys             back to the plain yosys\n"
      "  edashim shims add --dir ~/bin/eda vpr  manage another directory");
  auto dir_help = "Shim directory (default: " + default_shim_dir() + ")";
  auto* add_cmd = shims->add_subcommand("add", "Link tool names to edashim (existing links are kept)");
  add_cmd->add_option("--dir", o->dir, dir_help);
  add_cmd->add_flag("--if-found", o->if_found, "Link only tools that are installed now (on PATH)");
  add_cmd->add_option("names", o->names, "Tool names, e.g. yosys vpr yices")->required();
  add_cmd->footer("Example: edashim shims add yosys yosys-abc berkeley-abc");
  auto* rm_cmd = shims->add_subcommand("remove", "Remove tool links (never a file that is not a link to edashim)");
  rm_cmd->add_option("--dir", o->dir, dir_help);
  rm_cmd->add_flag("--all", o->all, "Remove every link to edashim in the directory");
  rm_cmd->add_option("names", o->names, "Tool names");
  rm_cmd->footer("Example: edashim shims remove yosys");
  auto* list_cmd = shims->add_subcommand("list", "Show each link and the real tool it runs now");
  list_cmd->add_option("--dir", o->dir, dir_help);
  list_cmd->add_flag("--names", o->names_only, "Print link names only, one a line (for scripts)");
  list_cmd->footer("Example: edashim shims list");

  return {shims, [o, add_cmd, rm_cmd, list_cmd]() {
            if (o->dir.empty()) o->dir = default_shim_dir();
            auto self = tool::SelfIdentity::current(std::getenv(pipeline::kChainVar));
            if (*add_cmd) return add(*o, self);
            if (*rm_cmd) {
              if (o->names.empty() && !o->all)
                return util::Voice("edashim shims remove").fail("name the tools to unlink, or --all", 2);
              return remove(*o, self);
            }
            (void)list_cmd;
            return list(*o, self);
          }};
}

}  // namespace commands
