#pragma once
// Catch2 2.13 has no SKIP. A test case that cannot run here (not root, a tool missing) calls
// EDASHIM_SKIP: it says why on stderr, returns, and the process then exits with 77 (tests/unit/
// main.cpp), which ctest reports as "Skipped" (SKIP_RETURN_CODE), never as "Passed". ctest runs
// each case in a process of its own, so the status belongs to that one case.
#include <string>

namespace unit {
// Records a skip; main() turns it into exit status 77 when nothing failed.
void note_skip(const std::string& test, const std::string& why);
// How many cases skipped in this process.
int skipped_count();
}  // namespace unit

#define EDASHIM_SKIP(why)                                                        \
  do {                                                                           \
    unit::note_skip(Catch::getResultCapture().getCurrentTestName(), (why));      \
    return;                                                                      \
  } while (0)
