#pragma once
// A private scratch directory on tmpfs for the tool's TMPDIR, removed after the run.
#include <cstdint>
#include <string>
#include <vector>

namespace run {

struct ScratchBase {
  std::string dir;   // a tmpfs mount with room; empty when none is usable
  std::string note;  // why none is usable, or which one was chosen
};

// Looks at /dev/shm, then $XDG_RUNTIME_DIR: must be a directory on tmpfs, writable, with at
// least `min_free_mb` free.
ScratchBase find_scratch_base(int64_t min_free_mb);
ScratchBase find_scratch_base(int64_t min_free_mb, const std::vector<std::string>& candidates);

// Where find_scratch_base looks: /dev/shm, then $XDG_RUNTIME_DIR. EDASHIM_SCRATCH_BASES
// (colon-separated) replaces the list: a hook for the fault tests (full, missing, read-only
// or non-tmpfs bases); it grants nothing the user could not do by setting TMPDIR.
std::vector<std::string> scratch_candidates();

// Creates base/edashim-<uid>-<pid>-XXXXXX with mode 0700; empty on failure (note says why).
std::string make_scratch(const std::string& base, std::string& note);

// Removes scratch directories left by edashim processes that no longer exist (SIGKILLed).
void sweep_stale_scratch(const std::string& base);

}  // namespace run
