#pragma once
// Dying as the tool died: of the same signal, with the caller's WCOREDUMP as it would be, and
// never recorded as a crash of edashim's own.
#include <string_view>

namespace run {

// Whether the kernel writes a core for this /proc/sys/kernel/core_pattern into the dying
// process's working directory (a relative file name), where edashim can put it somewhere
// private and remove it. Not for a pipe (`|systemd-coredump ...`, apport) or an absolute path:
// those would record a crash of edashim.
bool core_lands_in_cwd(std::string_view core_pattern);

// Ends edashim by `sig` at its default action. With `core_dumped` (the tool dumped core), the
// caller sees WCOREDUMP where that can be had without a crash record of edashim's own (a
// relative core_pattern: a core of a few kilobytes, without memory, in a private directory that
// a detached process removes once edashim is gone); otherwise edashim is made non-dumpable
// (PR_SET_DUMPABLE 0), which even a pipe core_pattern respects, and WCOREDUMP is false.
[[noreturn]] void die_like(int sig, bool core_dumped);

}  // namespace run
