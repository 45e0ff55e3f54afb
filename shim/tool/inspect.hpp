#pragma once
// Pre-flight: what the real tool's file allows an LD_PRELOADed allocator to do, decided before
// launch from the ELF file (and, for scripts, their interpreter's). Where a preload cannot
// serve malloc, the run must say so instead of silently measuring glibc (VTR issue #3189).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fact_cache.hpp"

namespace tool {

// What kind of file exec runs. Its word (kind_name) is what the run log's "kind" and the fact
// cache hold; unknown (not inspected) has none.
enum class ExecKind { unknown, not_elf, dynamic, static_exe, static_pie, script };
std::string_view kind_name(ExecKind k);    // "", "not-elf", "dynamic", "static", "static-pie", "script"
ExecKind kind_from_name(std::string_view word);  // unknown for a word it does not know

// Why an LD_PRELOADed allocator does not serve the tool's malloc; none: it does. Its word
// (blocker_name) is the run log's "blocker", which report and explain's readers know.
enum class Blocker {
  none,
  static_exe,           // statically linked: ld.so never runs
  static_pie,
  secure_exec,          // AT_SECURE: ld.so ignores LD_PRELOAD paths
  sanitizer,            // its runtime must load first and serves malloc
  own_malloc,           // defines malloc itself, ahead of any preload
  address_space_limit,  // set by the run's pre-flight (ulimit -v), not the file
  foreign_loader,       // started by a loader our libraries cannot load under
};
std::string_view blocker_name(Blocker b);  // "" for none
inline bool is_static(Blocker b) { return b == Blocker::static_exe || b == Blocker::static_pie; }

// What an executable's bytes say (pure; remembered in the fact cache by file identity).
struct ExecFacts {
  ExecKind kind = ExecKind::unknown;
  std::string interpreter;               // PT_INTERP, or the #! interpreter of a script
  std::string interpreter_arg;           // scripts: the optional argument after the interpreter
  bool defines_malloc = false;           // a defined `malloc` in .dynsym: its own allocator wins
  std::string linked_allocator_library;  // a DT_NEEDED entry that is a known allocator
  bool glibc_static = false;             // static glibc: it reads GLIBC_TUNABLES itself
  std::string sanitizer;                 // built with one: its runtime in DT_NEEDED, or "__asan_init"
};

ExecFacts facts_from_image(std::string_view image);
util::Facts to_cache(const ExecFacts& f);
ExecFacts from_cache(const util::Facts& f);

// The `#!` line as the kernel reads it: interpreter, then at most one argument.
struct Shebang {
  std::string interpreter, arg;
};
std::optional<Shebang> parse_shebang(std::string_view head);

// What makes exec enter secure-execution mode (AT_SECURE), from stat() and the xattr.
struct Privileges {
  bool setuid = false, setgid = false, capabilities = false;
  uint32_t owner = 0, group = 0;
  bool nosuid_mount = false;  // setuid bits and file capabilities have no effect there
};

// Pure: why exec of the file by (ruid, rgid) would be in secure-execution mode, or "". The
// kernel sets AT_SECURE when the effective ids differ from the real ones after exec, or when
// file capabilities raise the permitted set of a non-root user: root running a setuid-root
// file, or a file with capabilities, is NOT secure, and the preload works.
std::string secure_exec_reason(const Privileges& p, uint32_t ruid, uint32_t rgid);

struct Preflight {
  bool inspected = false;            // false: `error` says why nothing is known
  std::string error;
  // A #! names an interpreter that does not exist: exec gives ENOENT, and execvp goes on to the
  // next of that name on PATH (pipeline/plan.cpp does as it does).
  bool interpreter_missing = false;
  std::string path;                  // the tool as it will be executed
  std::vector<std::string> scripts;  // scripts passed through on the way to `binary`
  std::string binary;                // the ELF file that really runs
  ExecFacts facts;                   // of `binary`
  std::string secure;                // why `binary` runs in secure-execution mode, or ""
  util::FileStamp stamp;             // of `path`: where "warned" is remembered
  bool warned = false;               // the one-line warning was already given for this file
  bool cached = false;               // everything came from the fact cache
  // The verdict.
  Blocker blocker = Blocker::none;
  std::string reason;                // why LD_PRELOAD cannot serve malloc, in words
  std::string linked_note;           // an allocator linked in: what really serves malloc
  bool preload_reaches() const { return blocker == Blocker::none; }
};

// Pure: fills the verdict from the facts.
void decide(Preflight& p);

// Inspects `path` (following #! interpreters, looked up on `path_env` for `/usr/bin/env NAME`).
Preflight inspect(const std::string& path, const std::string& path_env, util::FactCache& cache);

// Remembers that the warning for this file was given, so it is given once.
void mark_warned(const Preflight& p, util::FactCache& cache);

}  // namespace tool
