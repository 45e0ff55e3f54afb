/* The end of a run's log line, written in the run's own process at its normal end (probe.c's
 * finish, probe/finish_here.c): the tool's figures and the probe's verdict, appended to the
 * line's start edashim left in the run's unfinished record (pipeline/unfinished.hpp).
 *
 * The common case only: everything else (a log to rotate, paths that are not plain ASCII,
 * processes the exec hook left without the allocator, a flow's top, a probe on that recorded
 * nothing) is refused, and the edashim-finish program writes that line (pipeline/finish.cpp),
 * whose writer this one follows field for field: tests/unit/test_line_end.cpp holds the two to
 * the same line over the same inputs.
 *
 * Pure C, no allocation, no stdio, no state: it runs in the tool's process at its exit. Parsing
 * works in place on the caller's writable copies of the record and of the probe's records. */
#ifndef EDASHIM_LINE_END_H
#define EDASHIM_LINE_END_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EDH_MAX_PREFIXES 16
#define EDH_MAX_SWEEP_BASES 8

/* The record's fields this end needs; strings point into the parsed text. */
struct edh_record {
  long long start_ns;          /* CLOCK_MONOTONIC at edashim's start */
  long long own[5];            /* edashim's own use: utime, stime, cutime, cstime (us), maxrss (kB) */
  const char* log;             /* "": no line */
  unsigned long long log_dev, log_ino; /* the log edashim checked before the exec (0: not checked) */
  long long log_max_bytes;
  const char* scratch;         /* "": none */
  int keep_scratch;
  const char* probe_file;      /* "": none */
  int probed, flow_top;
  const char* unprobed_note;   /* the verification when the probe does not record */
  const char* allocator_to_find;
  const char* launcher;
  const char* prefixes[EDH_MAX_PREFIXES][2]; /* file-name prefix, allocator family */
  int n_prefixes;
  const char* sweep_bases[EDH_MAX_SWEEP_BASES]; /* where the end looks for what runs left */
  int n_sweep_bases, more_sweep_bases;
  const char* line;            /* the line's start: an object left open */
};

/* The process's figures at its end (probe.c's finish). */
struct edh_figures {
  int wait_status;
  long long utime_us, stime_us, cutime_us, cstime_us;
  long maxrss_kb, cmaxrss_kb, hwm_kb;
  long long end_ns;
};

/* A process of the probe's records (run/probe_records.hpp's ProbedProcess). */
struct edh_process {
  long pid, ppid;
  const char *exe, *object, *end;
  int forked, running;
  long hwm, peak; /* -1: null */
};

/* Parses the record (text, len bytes, NUL-terminated at text[len]) in place. 1: it is one this
 * end can finish; 0: another format, damage, or a case for edashim-finish. */
int edh_parse_record(char* text, size_t len, struct edh_record* r);

/* Writes the whole line (start, end, no newline) to out; returns its length, or 0 when this end
 * does not write it (the case is edashim-finish's, or out is too small). scratch_in_use: -1 no
 * scratch, 0 removed or kept, 1 left in use. probe_text (probe_len bytes, NUL at the end) is
 * split in place into ps (room for max_processes; more is edashim-finish's case). */
size_t edh_line(const struct edh_record* r, const struct edh_figures* f, int scratch_in_use, char* probe_text,
                size_t probe_len, struct edh_process* ps, size_t max_processes, char* out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
