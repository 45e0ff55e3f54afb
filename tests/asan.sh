#!/usr/bin/env bash
# The whole test suite with edashim, its libraries and the unit tests built with AddressSanitizer
# and UBSan (EDASHIM_SANITIZE=ON), in a build dir of its own:
#   tests/asan.sh [BUILD_DIR]        (default: build-asan at the top of the source tree)
# What edashim starts is not sanitized: the tool, the allocators it preloads, and the probe
# library (built without the project-wide flags, since ASan cannot be preloaded; its own tests
# run here against that plain build). Every sanitizer report goes to BUILD_DIR/sanitizer-reports;
# the run fails if ctest fails or if any report was written, even by an edashim whose status
# the test did not check.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-asan}
# -O1 and line tables (-g1): what ASan's own documentation recommends, and enough for every
# report's stack to name file and line. RelWithDebInfo's -O2 -g made this build most of the
# pass's time (issue 49: CI under 60 minutes); what the pass checks is the same.
flags="-O1 -g1 -DNDEBUG"
cmake -S "$src" -B "$build" -DEDASHIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" >/dev/null
cmake --build "$build" -j"${ASAN_BUILD_JOBS:-2}"
reports=$build/sanitizer-reports
rm -rf "$reports" && mkdir -p "$reports"
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"  # no report file for a suppressed leak
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
status=0
# fuzz_smoke runs clang+ASan binaries the normal build dir builds (not this one); it runs there.
# unsanitized-edashim: tests whose premise a sanitized edashim cannot meet (tests/CMakeLists.txt).
ctest --test-dir "$build" --output-on-failure -j"${ASAN_TEST_JOBS:-2}" -LE "fuzz|unsanitized-edashim" || status=1
if compgen -G "$reports/*" >/dev/null; then
  echo "sanitizer reports:" >&2
  for f in "$reports"/*; do echo "== $f" >&2; head -40 "$f" >&2; done
  status=1
fi
exit $status
