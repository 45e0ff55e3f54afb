#pragma once
// Reading what libedashim_probe.so wrote (see probe/probe.c for the record format) into the
// process tree of a run, and the verdict: did the requested allocator serve malloc everywhere?
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fd.hpp"

namespace run {

struct ProbedProcess {
  long pid = 0, ppid = 0;
  std::string exe;
  std::string malloc_object;       // the shared object (or executable) `malloc` bound to
  bool forked = false;             // a fork()ed copy that never exec'd
  std::string end = "unknown";     // "exit" (exit record seen), "exec" (replaced by another image), "unknown"
  std::optional<long> vm_hwm_kb, vm_peak_kb;
};

// Pure: records in file order to processes in order of appearance. Damaged lines are skipped.
std::vector<ProbedProcess> parse_probe_records(std::string_view text);

// Pure: the processes the exec hook started without edashim's libraries because their loader
// could not load them (L records, probe/hook.c), in file order, each once, as
// "PROGRAM: loader L, needs GLIBC_2.34, has GLIBC_2.31"; a static program's (an empty loader)
// as "what PROGRAM starts: it is statically linked, ...".
std::vector<std::string> not_applied(std::string_view text);

// Pure: the last program process `pid` exec'd without edashim's libraries (its L record), or ""
// when none: the run's own process gone on as such a program cannot tell its end.
std::string exec_without_us(std::string_view text, long pid);

// Who served malloc: an allocator name ("jemalloc"), "glibc" for libc.so.*, "executable"
// when the program's own malloc did, else the object's file name.
std::string malloc_provider(const ProbedProcess& p);

struct Verification {
  bool verified = false;
  std::string note;  // why not, or what was checked
};

// True only when at least one process recorded and every recorded process had `malloc` from
// the requested allocator ("system": glibc; an absolute path: that file). Records of
// `launcher` (edashim's own executable) are not the tool's: a nested call passes through
// edashim before it execs the real tool, and a dynamically linked edashim (a sanitizer build;
// the release build is static and never loads the probe) is recorded with its own malloc.
Verification verify_allocator(const std::vector<ProbedProcess>& processes, const std::string& requested,
                              const std::string& launcher = {});

// The probe's private directory and record file for one run, removed afterwards.
struct ProbeFile {
  std::string dir, file;  // empty when it could not be created (the run goes on unprobed)
  std::string error;
  util::Fd lock_fd;       // edashim's lock on dir for the run (run/scratch.hpp): no sweep removes it
};
ProbeFile make_probe_file(const std::string& base);
std::string read_and_remove_probe_file(ProbeFile& f);
// The same in two steps: the records, and (once nothing waits for the run) the directory and
// its lock.
std::string read_probe_file(const ProbeFile& f);
void remove_probe_file(ProbeFile& f);

}  // namespace run
