#pragma once
// The run log's line: one JSON object per run. The names of its fields, written here only and
// shared by the writer (runlog/write.cpp) and the reader (runlog/read.cpp, and through it report,
// bench and farm), so that a renamed field cannot leave a reader looking for the old name.
#include <string_view>

namespace runlog::key {

inline constexpr int kVersion = 1;                         // "v": bumped when a field changes meaning
inline constexpr std::string_view version = "v";
// Known when the tool starts.
inline constexpr std::string_view start = "start";         // ISO 8601 UTC
inline constexpr std::string_view start_unix = "start_unix";
inline constexpr std::string_view tool = "tool";
inline constexpr std::string_view path = "path";           // the real tool's canonical path
inline constexpr std::string_view argv = "argv";
inline constexpr std::string_view cwd = "cwd";
inline constexpr std::string_view host = "host";
inline constexpr std::string_view pid = "pid";             // edashim's (in place: the tool's, = tool_pid)
inline constexpr std::string_view tool_pid = "tool_pid";
// The run's own id (16 hex digits), its flow's (inherited through EDASHIM_FLOW, the
// user's, or this run's id at the top) and the run it descends from (null at the top).
inline constexpr std::string_view run_id = "run_id";
inline constexpr std::string_view flow = "flow";
inline constexpr std::string_view parent_run = "parent_run";
inline constexpr std::string_view profile = "profile";     // named profile, or null
inline constexpr std::string_view config_files = "config_files";
inline constexpr std::string_view config_ignored = "config_ignored";  // "FILE: what (why)": settings not applied
// What edashim had to tell the user of this run, word for word (pipeline/notices.hpp): on stderr
// only at a terminal, so kept here for report, explain and doctor. [] when nothing.
inline constexpr std::string_view notices = "notices";
inline constexpr std::string_view allocator = "allocator"; // object: requested, library, version, build, note
inline constexpr std::string_view requested = "requested";
inline constexpr std::string_view library = "library";
inline constexpr std::string_view alloc_version = "version";
// Whose build the library is: "edashim" (its own, install/allocators), "library_dirs", "system",
// "path" (named by its path); null when nothing is preloaded.
inline constexpr std::string_view build = "build";
inline constexpr std::string_view note = "note";            // also in scratch and preflight
inline constexpr std::string_view preloaded_by_caller = "preloaded_by_caller";  // the caller's own, or null
inline constexpr std::string_view env_kept = "env_kept";  // the caller's variables a profile would have changed
inline constexpr std::string_view env_set = "env_set";
inline constexpr std::string_view scratch = "scratch";     // object: dir, kept, note
inline constexpr std::string_view dir = "dir";
inline constexpr std::string_view kept = "kept";
// The pre-flight verdict on the tool's file (tool/inspect.hpp), an object with these fields.
inline constexpr std::string_view preflight = "preflight";
inline constexpr std::string_view inspected = "inspected";
inline constexpr std::string_view error = "error";         // only when not inspected
inline constexpr std::string_view scripts = "scripts";
inline constexpr std::string_view binary = "binary";
inline constexpr std::string_view kind = "kind";
inline constexpr std::string_view own_malloc = "own_malloc";
inline constexpr std::string_view linked_allocator = "linked_allocator";
inline constexpr std::string_view secure_exec = "secure_exec";
inline constexpr std::string_view glibc_static = "glibc_static";
inline constexpr std::string_view preload_reaches = "preload_reaches";
inline constexpr std::string_view blocker = "blocker";
inline constexpr std::string_view reason = "reason";
inline constexpr std::string_view cached = "cached";
// In preflight: the glibc tunables that replace an allocator no preload reaches, or null; with
// instead_of (above), options, source, glibc_tunables and effect. Also the run's top-level
// field when edashim exec'd the tool in its own place (below).
inline constexpr std::string_view fallback = "fallback";
inline constexpr std::string_view options = "options";
inline constexpr std::string_view source = "source";
inline constexpr std::string_view glibc_tunables = "glibc_tunables";
inline constexpr std::string_view effect = "effect";
// The key of "same work" (README "Same work"): what ran, where, on what command.
inline constexpr std::string_view arm = "arm";             // "mimalloc[eager_commit_delay=4]", "system"
inline constexpr std::string_view bench = "bench";  // a bench's run: {experiment, arm, round}; absent otherwise
inline constexpr std::string_view experiment = "experiment";
inline constexpr std::string_view round = "round";         // in bench: counts from 1
// null, or {ran: profile, instead_of: arm}; a bench's arm with a profile adds by: "bench".
inline constexpr std::string_view explore = "explore";
inline constexpr std::string_view ran = "ran";
inline constexpr std::string_view instead_of = "instead_of";
inline constexpr std::string_view by = "by";
inline constexpr std::string_view by_bench = "bench";      // by's value
inline constexpr std::string_view machine = "machine";     // {cpu: model or null, kernel, cores}
inline constexpr std::string_view cpu = "cpu";
inline constexpr std::string_view kernel = "kernel";
inline constexpr std::string_view cores = "cores";
inline constexpr std::string_view signature = "signature"; // 16 hex digits of the normalised command's SHA-256
inline constexpr std::string_view signature_text = "signature_text";  // the normalised command
// Known when the tool has ended. Null where nobody could know: a tool run in edashim's place that
// died of a signal (or had nothing of edashim's loaded) has no user_s, sys_s or max_rss_kb.
inline constexpr std::string_view wall_s = "wall_s";
inline constexpr std::string_view user_s = "user_s";
inline constexpr std::string_view sys_s = "sys_s";
inline constexpr std::string_view max_rss_kb = "max_rss_kb";
inline constexpr std::string_view exit_code = "exit_code"; // null when it died of a signal
inline constexpr std::string_view signal = "signal";       // null when it exited
inline constexpr std::string_view status = "status";       // what a shell's $? shows
// Only when the tool's end was not told (status and figures null): how it ended, as far as is
// known: kEndedWithoutWord (killed by a signal or crashed: the line completed by a later run's
// sweep), kEndedUntold (nothing of edashim's could load into it to tell), or kEndedUntoldAfterExec
// and the program its process exec'd where edashim's library cannot load.
inline constexpr std::string_view ended = "ended";
inline constexpr std::string_view kEndedWithoutWord = "without a word (killed by a signal, or crashed)";
inline constexpr std::string_view kEndedUntold = "not told: nothing of edashim's is loaded in the tool to tell its end";
inline constexpr std::string_view kEndedUntoldAfterExec = "not told: the run's process went on as ";
// true: a process the tool left (a daemon) still held the scratch; a later run's sweep removes it
inline constexpr std::string_view scratch_left_in_use = "scratch_left_in_use";
inline constexpr std::string_view processes = "processes"; // the probe's records, or null
// A process's record (run/probe_records.hpp): pid (above), ppid, exe, malloc, provider, forked,
// end, vm_hwm_kb, vm_peak_kb.
inline constexpr std::string_view ppid = "ppid";
inline constexpr std::string_view exe = "exe";
inline constexpr std::string_view malloc_object = "malloc";  // the object malloc bound to
inline constexpr std::string_view provider = "provider";
inline constexpr std::string_view forked = "forked";
inline constexpr std::string_view end = "end";
inline constexpr std::string_view vm_peak_kb = "vm_peak_kb"; // its VmPeak, or null
inline constexpr std::string_view vm_hwm_kb = "vm_hwm_kb";   // its VmHWM, or null
// A boolean. The reader also takes a word or an object with "verified", so that a richer format
// would not turn every run into "unknown".
inline constexpr std::string_view allocator_verified = "allocator_verified";
inline constexpr std::string_view verified = "verified";
inline constexpr std::string_view verification = "verification";
inline constexpr std::string_view not_applied = "not_applied";  // processes started without edashim's libraries, and why
// "fallback" (with preflight's, above): only when edashim could not start the tool itself and
// exec'd it in its own place instead (then the times and status are absent: status null).
// Only when edashim was itself traced (gdb, strace) or run under valgrind and exec'd the tool in
// its own place for them to follow: who, e.g. "strace (pid 123)". Times, memory and status null.
inline constexpr std::string_view traced = "traced";
// Only when the configuration had errors and the tool ran plain, in edashim's place (times,
// memory and status null): the first error, "FILE:LINE:COLUMN: what is wrong".
inline constexpr std::string_view config_error = "config_error";
// A line that is not a run: its kind. Absent on run lines. "bench_outputs": `edashim bench
// --compare-outputs` says which allocators gave the reference arm's outputs for a tool.
inline constexpr std::string_view record = "record";
inline constexpr std::string_view bench_outputs = "bench_outputs";  // a record's kind, not a field
inline constexpr std::string_view identical_arms = "identical_arms";  // allocators whose outputs matched
inline constexpr std::string_view differing_arms = "differing_arms";  // allocators whose outputs differed

}  // namespace runlog::key
