#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan, in a build dir of their own) and runs
# each for N seconds from the seed corpus in fuzz/corpus/<target>. Fails on any crash, leak,
# timeout or sanitizer report (the reproducer is left in BUILD_DIR/artifacts/).
#   fuzz/run.sh [--build-dir DIR] [--seconds N] [--seed N] [--build-only|--run-only] [target...]
# Defaults: build-fuzz at the top of the source tree, 20 s a target, every target, a random seed.
# The project's build step calls --build-only (fuzz-targets, in ALL when clang is there) and
# ctest's fuzz_smoke --run-only, so no test compiles: the flags live here only.
# ctest's smoke run fixes the seed: the same code then meets the same inputs, so a CI failure is
# a change's doing, not the dice's (the long run keeps exploring with random seeds).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-fuzz
seconds=20
seed=0
targets=()
mode=both
while (($#)); do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --build-only) mode=build; shift ;;
    --run-only) mode=run; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ((${#targets[@]} == 0)); then
  targets=(fuzz_config fuzz_environment fuzz_elf fuzz_loader_check fuzz_version fuzz_trust)
  [[ -f $src/shim/tool/inspect.hpp ]] && targets+=(fuzz_inspect)
fi

if [[ $mode != run ]]; then
  cxx=$(command -v clang++-14 || command -v clang++ || true)
  cc=$(command -v clang-14 || command -v clang || true)
  [[ -n $cxx && -n $cc ]] || { echo "fuzz/run.sh: clang is not installed (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
  if [[ ! -f $build/CMakeCache.txt ]]; then
    mkdir -p "$build"
    # CMAKE_<LANG>_COMPILER_LAUNCHER from the environment (e.g. ccache, passed by the outer build)
    # becomes this dir's launcher.
    CC=$cc CXX=$cxx cmake -S "$src" -B "$build" -DEDASHIM_FUZZ=ON -DBUILD_TESTING=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/fuzz-configure.log" 2>&1 ||
      { cat "$build/fuzz-configure.log" >&2; rm -f "$build/CMakeCache.txt"; exit 1; }
  fi
  cmake --build "$build" -j"${FUZZ_BUILD_JOBS:-2}" --target "${targets[@]}" >"$build/fuzz-build.log" 2>&1 ||
    { tail -50 "$build/fuzz-build.log" >&2; echo "fuzz/run.sh: building the fuzz targets failed: see $build/fuzz-build.log" >&2; exit 1; }
  [[ $mode == build ]] && { echo "fuzz targets up to date in $build/fuzz"; exit 0; }
else
  for t in "${targets[@]}"; do
    [[ -x $build/fuzz/$t ]] ||
      { echo "fuzz/run.sh: fuzz targets not built ($build/fuzz/$t is missing): run cmake --build $(dirname "$build")" >&2; exit 1; }
  done
fi

mkdir -p "$build/artifacts"
EDASHIM_FUZZ_TMP=$(mktemp -d /dev/shm/edashim-fuzz-run-XXXXXX 2>/dev/null || mktemp -d)
export EDASHIM_FUZZ_TMP
trap 'rm -rf "$EDASHIM_FUZZ_TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
summary=$build/fuzz-summary.txt
: >"$summary"
for t in "${targets[@]}"; do
  seeds=$src/fuzz/corpus/${t#fuzz_}
  # The loader check reads what pre-flight reads: its seeds are those programs and libraries.
  [[ $t == fuzz_loader_check ]] && seeds=$src/fuzz/corpus/inspect
  work=$build/corpus/${t#fuzz_}   # grows across runs; the seeds in the repo stay as they are
  mkdir -p "$work"
  log=$build/$t.log
  rc=0
  "$build/fuzz/$t" -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "$work" "$seeds" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if ((rc != 0)) || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$log"; then
    echo "FAIL $t (exit $rc): see $log" | tee -a "$summary"
    grep -E 'ERROR:|runtime error:|SUMMARY:|Test unit written' "$log" | head -20 >&2 || true
    status=1
  else
    echo "ok   $t: ${execs:-?} executions in ${seconds} s, corpus $(ls "$work" | wc -l) inputs" | tee -a "$summary"
  fi
done
exit $status
