#pragma once
// The learned choices: $XDG_STATE_HOME/edashim/learned.toml, one [[choice]] per tool and CPU
// model, written by `edashim report --recommend` when adopt is on, dropped by `edashim forget`
// and by a recommend that no longer supports it, and read by each run of that tool with adopt
// on (pipeline/learned_layer.cpp hands config/load.cpp the choice, a layer between the user's
// config and project files). A run reads this file, never the log.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.hpp"

namespace learn {

// The tool binary a choice was learned on: a changed binary (upgrade, rebuild) drops it.
struct Identity {
  std::string path;     // canonical
  int64_t size = 0, mtime_s = 0, mtime_ns = 0;
  bool operator==(const Identity& o) const {
    return path == o.path && size == o.size && mtime_s == o.mtime_s && mtime_ns == o.mtime_ns;
  }
};
// An arm split into the allocator and its options: "mimalloc[eager_commit_delay=4,purge_delay=0]".
struct ArmParts {
  std::string allocator;
  std::vector<std::pair<std::string, std::string>> options;  // as written: name, value text
};
std::optional<ArmParts> parse_arm(const std::string& arm);

// Why an arm read from a run log cannot be used, "" when it can. A log line is data another
// program (or user) wrote: its arm is used only when it is an allocator of alloc::known_names()
// with options a config file could set (names of letters, digits and '_', values that fit the
// option's grammar), none of them restricted (alloc::restricted_option: they write files, abort
// or starve the tool), each once, values of letters, digits and "._+-" only.
std::string arm_problem(const std::string& arm);

// Whether a tool name from a log can name a [tool.NAME] table or be printed: it looks like a
// file name (no '/', no control characters, no quotes or backslashes, at most 128 bytes, not
// "." or "..").
bool is_tool_name(std::string_view name);


// The identity of the file at `path` now; nullopt when it cannot be stat'ed.
std::optional<Identity> identity_of(const std::string& path);

struct Learned {
  std::string tool, cpu;          // cpu: model name, "" unknown
  std::string arm;                // "mimalloc", "mimalloc[eager_commit_delay=4]"
  std::string replaces;           // the arm it replaced (the current choice then)
  Identity binary;
  int64_t runs = 0, signatures = 0;
  double ratio = 0, ci_lo = 0, ci_hi = 0, rss_ratio = 0, p = 0;
  std::string date;               // ISO 8601 UTC
  int line = 0;                   // where its [[choice]] starts in the file (origin for explain)
};

// The file's entries; or why not ("FILE:LINE: ...") when it does not parse, nests too deep
// (util::parse_toml checks before toml++ sees it) or an entry lacks a field (then no learned
// choice is used at all: the file is edashim's own, so a broken one is said, not guessed at).
// Never throws.
util::Result<std::vector<Learned>> parse_learned(const std::string& text, const std::string& name);
std::string render_learned(const std::vector<Learned>& entries);

// Reads, changes and writes the file under an exclusive lock on FILE.lock, atomically (a
// rename); `change` returns false to leave the file as it was. A missing file reads as empty; a
// file that does not parse is an error, or, with `start_over_if_broken` (forget all), empty.
util::Status update_learned(const std::string& path, const std::function<bool(std::vector<Learned>&)>& change,
                            bool start_over_if_broken = false);

// "allocator mimalloc: learned from 143 runs over 9 commands on this CPU model, 0.84x, 95% CI
// 0.80-0.88, RSS 1.04x" (the options, when the arm has any, after the allocator).
std::string describe(const Learned& l);

}  // namespace learn
