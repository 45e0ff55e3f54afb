#pragma once
// A private scratch directory on tmpfs for the tool's TMPDIR, removed after the run; and the
// locks that tell a live run's directories (scratch and probe) from those a killed run left.
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace run {

// Why a directory cannot be the user's own base (below), and what would make it one.
struct BaseCheck {
  std::string what;      // empty: usable
  std::string fix;       // the command that mends it; may be empty when `what` says it
  bool refused = false;  // another user's, a link, ...: said on stderr; else an I/O error (noted only)
  bool ok() const { return what.empty(); }
  std::string line() const { return fix.empty() ? what : what + "; " + fix; }
};

struct ScratchBase {
  std::string dir;   // a tmpfs mount with room; empty when none is usable
  std::string own;   // the user's own directory in it (own_base), where the run's scratch goes
  std::string note;  // why none is usable, or which one was chosen
  BaseCheck refused; // the first candidate with room had an unusable own base: no scratch
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
// The chosen one's own base is checked as it is (check_own_base: changes nothing); when it is
// refused there is no scratch (`refused` says why), rather than a quiet move elsewhere.
ScratchBase find_scratch_base(int64_t min_free_bytes, const std::string& rule);
ScratchBase find_scratch_base(int64_t min_free_bytes, const std::string& rule, const std::vector<std::string>& candidates);

// Where find_scratch_base looks: /dev/shm, then $XDG_RUNTIME_DIR. EDASHIM_SCRATCH_BASES
// (colon-separated) replaces the list: a hook for the fault tests (full, missing, read-only
// or non-tmpfs bases); it grants nothing the user could not do by setting TMPDIR.
std::vector<std::string> scratch_candidates();

// The user's own directory in a shared base, after tmux's /tmp/tmux-UID: /dev/shm/edashim-1001.
// Runs put their scratch and probe directories in it, never in the shared base itself, so that
// another user can neither take their names nor slow the sweep with names of their own (a sweep
// reads this directory only: its cost is the user's own entries).
std::string own_base(const std::string& shared_base, uid_t uid);

// Why `own`, as lstat found it, cannot be the user's base: a link (even the user's own: a base
// is where a run's files go, not a pointer elsewhere), not a directory, or another user's
// (they made it first: squatted). A wider mode of the user's own is not refused: it is narrowed.
BaseCheck refuse_own_base(const std::string& own, const struct stat& st, uid_t me);

// Why the shared base holding an own base cannot (stat's result): one where another user could
// rename the own base away and put theirs in its place between a check and a use (owned by
// someone other than the user or root, or writable by others without the sticky bit).
BaseCheck refuse_shared_base(const std::string& base, const struct stat& st, uid_t me);

// The rule as it stands now, changing nothing (explain, doctor, the plan): the shared base must
// pass refuse_shared_base, and `own` be missing or refuse_own_base nothing.
BaseCheck check_own_base(const std::string& own);

// Makes `own` ready for this run: created 0700 when missing, its mode set to 0700 when ours and
// otherwise, then checked by refuse_own_base and util::check_owned_dir (with no shared_dirs:
// a base is never shared).
BaseCheck make_own_base(const std::string& own);

// A directory owned by this run, and the descriptor whose flock says so. The lock is on the
// directory itself: a tool that empties its TMPDIR cannot remove it, and a sweeper that holds
// it while deleting cannot race the owner.
struct LockedDir {
  std::string path;  // empty on failure
  util::Fd lock_fd;
  BaseCheck refused; // make_scratch: the user's own base was refused (the caller says so)
};

// The name's prefix of the directories a sweep may remove ("edashim-<uid>-"), and of those it
// never touches (keep_scratch: "edashim-kept-<uid>-"; the user asked to keep them).
std::string sweepable_prefix(uid_t uid);
std::string kept_prefix(uid_t uid);
// True when a sweep run by `uid` may look at directory entry `name`.
bool is_sweepable_name(const std::string& name, uid_t uid);

// Creates base/<prefix><pid>-XXXXXX with mode 0700 and takes its lock (close-on-exec). Tries
// again with a new name when a concurrent sweep took a directory between mkdtemp and flock.
util::Result<LockedDir> make_locked_dir(const std::string& base, const std::string& prefix);

// Creates the run's scratch directory in the user's own base `own` (make_own_base first; kept:
// named so that no sweep removes it). Its lock
// descriptor is inherited by the tool's processes (not close-on-exec, at 64 or above; not under
// a `ulimit -n` of 64 or less), so that the directory stays while any of them lives. Empty path on failure; note says why.
LockedDir make_scratch(const std::string& own, bool kept, std::string& note);

// What became of a directory at the end of its run.
enum class Removal { removed, in_use, gone };
// Removes `dir` if no process holds its lock (a daemon the tool left may): taken without
// waiting, held while deleting. in_use: left for a later run's sweep.
Removal remove_if_unlocked(const std::string& dir);

// Removes the directories under `own` (the user's own base) that edashim runs of this user left
// (SIGKILLed, or left to a daemon that has since ended): those whose lock nobody holds. Never
// decides by PID: a run in another PID namespace sharing /dev/shm or /tmp has a PID that means
// nothing here. Reads nothing unless `own` is a directory of the user's that no one else can
// write (not a link): a base made by someone else is never listed, let alone swept.
// `before_removal` is given each such directory while the sweep holds its lock, before it goes
// (a run's private directory may hold the line of a run that ended without a word). At most
// `budget` are removed (the rest is left to later sweeps); returns how many were.
size_t sweep_stale_scratch(const std::string& own, const std::function<void(const std::string&)>& before_removal = {},
                           size_t budget = SIZE_MAX);

// Hands a directory's lock down to the tool's processes (not close-on-exec, at 64 or above),
// so that the directory stays while any of them lives; under a `ulimit -n` of 64 or less it
// stays close-on-exec.
void hand_down(util::Fd& lock);

}  // namespace run
