/* The run's line, written by the run's own process at its normal end, without a program of
 * edashim's: probe.c's finish calls it first and execs edashim-finish (pipeline/finish.cpp) only
 * when it returns 0 or 2. Starting a static program at every tool's end cost more than the rest
 * of a short run's overhead (docs/overhead.md).
 *
 * From the record edashim left in the run's private directory (pipeline/unfinished.hpp) and the
 * probe's records: removes the scratch when nothing holds it and it is empty, writes the line
 * (line_end.h) to the log edashim checked before the exec, under its lock, then removes the
 * record and the directory. Returns
 *   1  the line is written and the directory gone: the process ends as it would;
 *   2  the line is written, and runs that ended without a word left directories to sweep: the
 *      record is renamed "finished", and edashim-finish sweeps (it writes no second line);
 *   0  nothing is written (another format, a log to rotate or replaced, a tree left in the
 *      scratch, a case line_end.h leaves): edashim-finish does it all.
 * errno is the caller's to keep. */
#ifndef EDASHIM_FINISH_HERE_H
#define EDASHIM_FINISH_HERE_H

#include <stddef.h>

struct edh_figures;
int edashim_finish_here(const char* dir, size_t dir_len, const struct edh_figures* f);

#endif
