#pragma once
// A private scratch directory on tmpfs for the tool's TMPDIR, removed after the run; and the
// locks that tell a live run's directories (scratch and probe) from those a killed run left.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace run {

struct ScratchBase {
  std::string dir;   // a tmpfs mount with room; empty when none is usable
  std::string note;  // why none is usable, or which one was chosen
};

// Bytes a scratch base must have free: scratch_min_free_mb, and scratch_min_free_percent of
// the machine's RAM (a tmpfs fills RAM, so "room" is a share of it); the larger of the two.
int64_t required_free_bytes(int64_t min_free_mb, double min_free_percent, int64_t ram_bytes);

// "TMPDIR=/x" for the first of TMPDIR, TMP, TEMP set (not empty) in `env`: a temporary
// directory the user chose, which scratch keeps unless a profile says scratch = "override".
std::string user_temp_dir(const std::vector<std::string>& env);

// The machine's RAM in bytes (0 when unknown).
int64_t ram_bytes();

// Looks at the candidates (scratch_candidates()): must be a directory on tmpfs, writable, with
// at least `min_free_bytes` free. `rule` names the settings behind the number, for the note.
ScratchBase find_scratch_base(int64_t min_free_bytes, const std::string& rule);
ScratchBase find_scratch_base(int64_t min_free_bytes, const std::string& rule, const std::vector<std::string>& candidates);

// Where find_scratch_base looks: /dev/shm, then $XDG_RUNTIME_DIR. EDASHIM_SCRATCH_BASES
// (colon-separated) replaces the list: a hook for the fault tests (full, missing, read-only
// or non-tmpfs bases); it grants nothing the user could not do by setting TMPDIR.
std::vector<std::string> scratch_candidates();

// A directory owned by this run, and the descriptor whose flock says so. The lock is on the
// directory itself: a tool that empties its TMPDIR cannot remove it, and a sweeper that holds
// it while deleting cannot race the owner.
struct LockedDir {
  std::string path;  // empty on failure
  int lock_fd = -1;
};

// The name's prefix of the directories a sweep may remove ("edashim-<uid>-"), and of those it
// never touches (keep_scratch: "edashim-kept-<uid>-"; the user asked to keep them).
std::string sweepable_prefix(uid_t uid);
std::string kept_prefix(uid_t uid);
// True when a sweep run by `uid` may look at directory entry `name`.
bool is_sweepable_name(const std::string& name, uid_t uid);

// Creates base/<prefix><pid>-XXXXXX with mode 0700 and takes its lock (close-on-exec). Tries
// again with a new name when a concurrent sweep took a directory between mkdtemp and flock.
LockedDir make_locked_dir(const std::string& base, const std::string& prefix, std::string& error);

// Creates the run's scratch directory (kept: named so that no sweep removes it). Its lock
// descriptor is inherited by the tool's processes (not close-on-exec, at 64 or above; not under
// a `ulimit -n` of 64 or less), so that the directory stays while any of them lives. Empty path on failure; note says why.
LockedDir make_scratch(const std::string& base, bool kept, std::string& note);

// What became of a directory at the end of its run.
enum class Removal { removed, in_use, gone };
// Removes `dir` if no process holds its lock (a daemon the tool left may): taken without
// waiting, held while deleting. in_use: left for a later run's sweep.
Removal remove_if_unlocked(const std::string& dir);

// Removes the directories under `base` that edashim runs of this user left (SIGKILLed, or left
// to a daemon that has since ended): those whose lock nobody holds. Never decides by PID: a
// run in another PID namespace sharing /dev/shm or /tmp has a PID that means nothing here.
void sweep_stale_scratch(const std::string& base);

}  // namespace run
