#include "tool/inspect.hpp"

#include <elf.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "alloc/allocators.hpp"
#include "alloc/sanitizers.hpp"
#include "elf/elf_image.hpp"
#include "util/fs.hpp"
#include "util/mapped_file.hpp"
#include "util/strings.hpp"

namespace tool {

namespace {
constexpr std::pair<ExecKind, std::string_view> kKindNames[] = {
    {ExecKind::not_elf, "not-elf"},       {ExecKind::dynamic, "dynamic"}, {ExecKind::static_exe, "static"},
    {ExecKind::static_pie, "static-pie"}, {ExecKind::script, "script"},
};
constexpr std::pair<Blocker, std::string_view> kBlockerNames[] = {
    {Blocker::static_exe, "static"},   {Blocker::static_pie, "static-pie"},
    {Blocker::secure_exec, "secure-exec"}, {Blocker::sanitizer, "sanitizer"},
    {Blocker::own_malloc, "own-malloc"},   {Blocker::address_space_limit, "address-space-limit"},
    {Blocker::foreign_loader, "foreign-loader"},
};
}  // namespace

std::string_view kind_name(ExecKind k) {
  for (const auto& [kind, word] : kKindNames)
    if (kind == k) return word;
  return "";
}

ExecKind kind_from_name(std::string_view word) {
  for (const auto& [kind, w] : kKindNames)
    if (w == word) return kind;
  return ExecKind::unknown;
}

std::string_view blocker_name(Blocker b) {
  for (const auto& [blocker, word] : kBlockerNames)
    if (blocker == b) return word;
  return "";
}

ExecFacts facts_from_image(std::string_view image) {
  ExecFacts f;
  if (image.substr(0, 2) == "#!") {
    f.kind = ExecKind::script;
    if (auto s = parse_shebang(image)) {
      f.interpreter = s->interpreter;
      f.interpreter_arg = s->arg;
    }
    return f;
  }
  auto info = elf::parse(image);
  if (!info) {
    f.kind = ExecKind::not_elf;
    return f;
  }
  f.interpreter = info->interp;
  if (info->has_interp) f.kind = ExecKind::dynamic;
  else f.kind = info->type == ET_DYN ? ExecKind::static_pie : ExecKind::static_exe;
  if (f.kind == ExecKind::dynamic) {
    f.defines_malloc = elf::defines_function(image, "malloc");
    for (const auto& n : info->needed) {
      if (f.linked_allocator_library.empty() && alloc::is_allocator_library(n)) f.linked_allocator_library = n;
      if (f.sanitizer.empty() && alloc::is_sanitizer_runtime(n)) f.sanitizer = n;
    }
    // clang links its sanitizer runtimes into the executable by default, exporting __asan_init;
    // GCC's -static-libasan does not export it, but the name stays in the symbol table's strings
    // (a name no other program carries) unless the file is stripped.
    if (f.sanitizer.empty() && (elf::defines_function(image, "__asan_init") ||
                                image.find(std::string_view("\0__asan_init\0", 13)) != std::string_view::npos))
      f.sanitizer = "__asan_init";
  } else {
    // Static glibc carries its tunables' names; musl, Go and friends do not read GLIBC_TUNABLES.
    f.glibc_static = image.find("glibc.malloc.mmap_threshold") != std::string_view::npos;
  }
  return f;
}

util::Facts to_cache(const ExecFacts& f) {
  return {{"kind", std::string(kind_name(f.kind))},
          {"interp", f.interpreter},
          {"interp_arg", f.interpreter_arg},
          {"own_malloc", f.defines_malloc ? "1" : "0"},
          {"linked_alloc", f.linked_allocator_library},
          {"glibc_static", f.glibc_static ? "1" : "0"},
          {"sanitizer", f.sanitizer}};
}

ExecFacts from_cache(const util::Facts& c) {
  auto get = [&](const char* k) {
    auto it = c.find(k);
    return it == c.end() ? std::string() : it->second;
  };
  ExecFacts f;
  f.kind = kind_from_name(get("kind"));
  f.interpreter = get("interp");
  f.interpreter_arg = get("interp_arg");
  f.defines_malloc = get("own_malloc") == "1";
  f.linked_allocator_library = get("linked_alloc");
  f.glibc_static = get("glibc_static") == "1";
  f.sanitizer = get("sanitizer");
  return f;
}

std::optional<Shebang> parse_shebang(std::string_view head) {
  if (head.substr(0, 2) != "#!") return std::nullopt;
  // The kernel reads at most 256 bytes (BINPRM_BUF_SIZE) of the first line.
  head = head.substr(2, 254);
  head = head.substr(0, head.find('\n'));
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  size_t i = 0;
  while (i < head.size() && blank(head[i])) ++i;
  size_t start = i;
  while (i < head.size() && !blank(head[i])) ++i;
  if (i == start) return std::nullopt;
  Shebang s;
  s.interpreter = std::string(head.substr(start, i - start));
  while (i < head.size() && blank(head[i])) ++i;
  size_t end = head.size();
  while (end > i && (blank(head[end - 1]) || head[end - 1] == '\r')) --end;
  s.arg = std::string(head.substr(i, end - i));
  return s;
}

std::string secure_exec_reason(const Privileges& p, uint32_t ruid, uint32_t rgid) {
  if (p.nosuid_mount) return "";
  if (p.setuid && p.owner != ruid) return "setuid to uid " + std::to_string(p.owner);
  if (p.setgid && p.group != rgid) return "setgid to gid " + std::to_string(p.group);
  if (p.capabilities && ruid != 0) return "file capabilities (see getcap)";
  return "";
}

void decide(Preflight& p) {
  p.blocker = Blocker::none;
  p.reason.clear();
  p.linked_note.clear();
  if (!p.inspected) return;
  const auto& f = p.facts;
  const std::string& b = p.binary;
  if (f.kind == ExecKind::static_exe || f.kind == ExecKind::static_pie) {
    p.blocker = f.kind == ExecKind::static_pie ? Blocker::static_pie : Blocker::static_exe;
    p.reason = b + " is statically linked (" + std::string(kind_name(f.kind)) + ", no PT_INTERP): ld.so never runs for it, so LD_PRELOAD "
               "cannot reach its malloc";
  } else if (!f.sanitizer.empty()) {
    p.blocker = Blocker::sanitizer;
    p.reason = b + " is built with a sanitizer (" + f.sanitizer + "): its runtime must be the first library loaded "
               "and serves malloc itself, so nothing is preloaded (neither an allocator nor the probe)";
  } else if (!p.secure.empty()) {
    p.blocker = Blocker::secure_exec;
    p.reason = b + " runs in secure-execution mode (" + p.secure + "): ld.so ignores LD_PRELOAD paths for it";
  } else if (f.defines_malloc) {
    p.blocker = Blocker::own_malloc;
    p.reason = b + " defines malloc itself (in its dynamic symbol table): its own allocator serves malloc, "
               "ahead of any preload";
  }
  if (!f.linked_allocator_library.empty() && p.blocker == Blocker::none) {
    std::string family = alloc::allocator_of_library(f.linked_allocator_library);
    p.linked_note = b + " links " + f.linked_allocator_library + ": without a preload its malloc is " + family +
                    "'s, not glibc's; a preloaded allocator comes first and serves malloc, and " + family +
                    " still initialises";
  }
}

namespace {

std::optional<std::string> find_on_path(const std::string& name, const std::string& path_env) {
  for (const auto& dir : util::split(path_env, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (util::is_regular_executable(candidate)) return candidate;
  }
  return std::nullopt;
}

Privileges privileges_of(const std::string& path, const struct stat& st) {
  Privileges p;
  p.setuid = st.st_mode & S_ISUID;
  // setgid without group execute marks mandatory locking, not a privilege.
  p.setgid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP);
  p.owner = st.st_uid;
  p.group = st.st_gid;
  p.capabilities = ::getxattr(path.c_str(), "security.capability", nullptr, 0) > 0;
  if (p.setuid || p.setgid || p.capabilities) {
    struct statvfs vfs;
    p.nosuid_mount = ::statvfs(path.c_str(), &vfs) == 0 && (vfs.f_flag & ST_NOSUID);
  }
  return p;
}

}  // namespace

Preflight inspect(const std::string& path, const std::string& path_env, util::FactCache& cache) {
  Preflight p;
  p.path = path;
  p.cached = true;
  std::string current = path;
  // The kernel follows at most 4 levels of interpreters (BINPRM_MAX_RECURSION).
  for (int depth = 0; depth < 5; ++depth) {
    struct stat st;
    if (::stat(current.c_str(), &st) != 0) {
      p.interpreter_missing = depth > 0 && (errno == ENOENT || errno == ENOTDIR);
      p.error = "cannot stat " + current + ": " + std::strerror(errno);
      return p;
    }
    auto stamp = util::FileStamp::of(st);
    ExecFacts facts;
    // An entry without "sanitizer" predates that check: read the file again.
    if (auto c = cache.get(stamp); c && c->count("kind") && c->count("sanitizer")) {
      facts = from_cache(*c);
      if (depth == 0) p.warned = c->count("warned") && c->at("warned") == "1";
    } else {
      util::MappedFile file;
      if (auto opened = file.open(current); !opened) {
        p.error = opened.error();
        return p;
      }
      facts = facts_from_image(file.bytes());
      p.cached = false;
      auto entry = to_cache(facts);
      entry["path"] = current;
      cache.put(stamp, entry);
    }
    if (depth == 0) p.stamp = stamp;
    if (facts.kind != ExecKind::script) {
      p.binary = current;
      p.facts = facts;
      p.secure = secure_exec_reason(privileges_of(current, st), ::getuid(), ::getgid());
      p.inspected = true;
      break;
    }
    p.scripts.push_back(current);
    if (facts.interpreter.empty()) {
      p.error = current + " starts with #! but names no interpreter";
      return p;
    }
    std::string next = facts.interpreter;
    if (util::basename(next) == "env" && !facts.interpreter_arg.empty() && facts.interpreter_arg[0] != '-') {
      // `#!/usr/bin/env python3`: env execs python3 from PATH, and that is what takes the preload.
      auto found = find_on_path(util::split(facts.interpreter_arg, ' ').front(), path_env);
      if (found) next = *found;
    }
    current = next;
  }
  if (!p.inspected && p.error.empty()) p.error = path + ": too many levels of #! interpreters";
  cache.save();
  decide(p);
  return p;
}

void mark_warned(const Preflight& p, util::FactCache& cache) {
  auto facts = cache.get(p.stamp);
  if (!facts) return;
  (*facts)["warned"].assign(1, '1');  // not = "1": GCC 12 -O3 false -Wrestrict (PR 105329)
  cache.put(p.stamp, *facts);
  cache.save();
}

}  // namespace tool
