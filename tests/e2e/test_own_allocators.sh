#!/usr/bin/env bash
# edashim's own allocators (issue 48, install/allocators): a run preloads edashim's build of
# jemalloc, mimalloc or tcmalloc before the system's, the probe proves it served malloc in every process,
# the line, explain and doctor say whose build it is, and a tool's children load nothing with it
# but glibc (Debian's jemalloc brings libstdc++, libm and libgcc_s into each). A build made
# without their sources (no registry) has none: these tests then say so by failing, on CI.
source "$(dirname "$0")/lib.sh"

OWN=$(dirname "$BIN")/alloc

need_own() {
  [ -f "$OWN/libjemalloc.so.2" ] && [ -f "$OWN/libmimalloc.so.2" ] && [ -f "$OWN/libtcmalloc_minimal.so.4" ] ||
    fail "this build has no allocators of its own in $OWN (its configure step said why: cmake -S . -B build | grep -A3 'own allocators')"
}

# The jemalloc a run takes here: its build for glibc 2.34 and later, on a machine that new (the
# tests' machines are Debian 12: 2.36); the floor's build on an older one (e2e_old_userland).
LEAN=$OWN/glibc-2.34/libjemalloc.so.2
need_lean() {
  need_own
  [ "$(printf '%s\n' 2.34 "$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')" | sort -V | head -1)" = 2.34 ] ||
    skip "this machine's glibc is older than 2.34: runs take the floor's build (e2e_old_userland tests that)"
  [ -f "$LEAN" ] || fail "this build has no jemalloc for glibc 2.34 in $LEAN (install/allocators/build.sh makes it)"
}

# A run of yosys with ALLOCATOR: the line's allocator object and the probe's verdict.
yosys_run() {
  command -v yosys > /dev/null || skip "yosys is not installed (Debian: apt-get install yosys)"
  shim yosys
  EDASHIM_ALLOCATOR=$1 yosys -q -p 'read_verilog -sv '"$SRC"'/examples/counter/counter.v; synth -top counter' \
    > "$SB/out" 2> "$SB/err" || fail "yosys with $1 failed: $(cat "$SB/err")"
  last_log "$LOG" "' '.join(str(x) for x in (j['allocator']['build'], j['allocator']['library'], j.get('allocator_verified')))"
}

test_a_run_preloads_edashims_own_jemalloc_and_the_probe_proves_it() {
  need_lean
  expect_eq "$(yosys_run jemalloc)" "edashim $LEAN True" "the line: build, library (for this glibc), verified"
  expect_eq "$(cat "$SB/err")" "" "nothing on stderr"
  expect_contains "$("$BIN" explain yosys 2>&1)" "$LEAN (version 5.3.0" "explain names the library"
  expect_contains "$("$BIN" explain yosys 2>&1)" "edashim's build)" "explain says whose build"
  local doctor
  doctor=$("$BIN" doctor --dir "$SB/shims" 2>&1)
  expect_contains "$doctor" "$OWN/libjemalloc.so.2 (edashim's build)" "doctor"
  expect_contains "$doctor" "$LEAN (edashim's build for glibc 2.34 and later" "doctor: the build for newer glibc"
  expect_contains "$doctor" "$OWN/libmimalloc.so.2 (edashim's build)" "doctor"
  expect_contains "$doctor" "$OWN/libtcmalloc_minimal.so.4 (edashim's build)" "doctor"
  expect_contains "$doctor" "libtbbmalloc_proxy.so.2 (the system's)" "doctor: what edashim did not build"
}

test_a_run_preloads_edashims_own_mimalloc_and_the_probe_proves_it() {
  need_own
  expect_eq "$(yosys_run mimalloc)" "edashim $OWN/libmimalloc.so.2 True" "the line: build, library, verified"
  expect_eq "$(cat "$SB/err")" "" "nothing on stderr"
}

# tcmalloc is C++: edashim's build carries the part of libstdc++ it uses, hidden. A C++ tool
# keeps its own libstdc++ (yosys's exceptions, strings and streams go through it), and a
# bad_alloc thrown by tcmalloc's operator new is caught by the tool's handler.
test_a_run_preloads_edashims_own_tcmalloc_and_a_cxx_tool_catches_its_bad_alloc() {
  need_own
  expect_eq "$(yosys_run tcmalloc)" "edashim $OWN/libtcmalloc_minimal.so.4 True" "the line: build, library, verified"
  expect_eq "$(cat "$SB/err")" "" "nothing on stderr"
  cat > "$SB/bad_alloc.cpp" <<'CPP'
#include <cstdio>
#include <new>
#include <string>
int main() {
  std::string s(1000, 'x');
  try { char* p = new char[1ULL << 60]; p[0] = 1; std::puts("no bad_alloc"); }
  catch (const std::bad_alloc&) { std::puts("caught bad_alloc"); }
}
CPP
  c++ -O1 -o "$SB/bad_alloc" "$SB/bad_alloc.cpp" || fail "c++ bad_alloc.cpp"
  local direct through
  direct=$("$SB/bad_alloc" 2>/dev/null)
  through=$(EDASHIM_ALLOCATOR=tcmalloc "$BIN" run -- "$SB/bad_alloc" 2>/dev/null)
  expect_eq "$direct" "caught bad_alloc" "directly (the test itself)"
  expect_eq "$through" "$direct" "with edashim's tcmalloc: as directly"
  expect_contains "$(EDASHIM_ALLOCATOR=tcmalloc "$BIN" run -- sh -c 'cat /proc/$$/maps')" "$OWN/libtcmalloc_minimal.so.4" \
    "the process has edashim's tcmalloc"
}

test_an_allocator_edashim_did_not_build_is_the_systems() {
  local tbb
  tbb=$(ls /usr/lib/*-linux-gnu/libtbbmalloc_proxy.so.2 2>/dev/null | head -1)
  [ -n "$tbb" ] || skip "Debian's libtbbmalloc2 is not installed"
  expect_eq "$(yosys_run tbbmalloc)" "system $tbb True" "the line"
}

# What a process of a run maps (every child of a tool is one, with the same preload): with
# Debian's jemalloc, libstdc++ and friends; with edashim's build for this glibc, what it maps
# directly (sh: glibc alone), plus the allocator and the probe (and libdl's stub, the probe's).
# libpthread's stub, which the floor's build needs, is not among them.
test_a_runs_processes_load_nothing_but_glibc_with_edashims_jemalloc() {
  need_lean
  local direct shimmed maps
  direct=$(sh -c 'cat /proc/$$/maps' | awk '$6 ~ /\.so/ { print $6 }' | sort -u | xargs -n1 basename)
  maps=$(EDASHIM_ALLOCATOR=jemalloc "$BIN" run -- sh -c 'cat /proc/$$/maps')
  shimmed=$(awk '$6 ~ /\.so/ { print $6 }' <<<"$maps" | sort -u | xargs -n1 basename |
    grep -v -e '^libjemalloc\.so\.2$' -e '^libedashim_probe\.so$' -e '^libdl\.so\.2$')
  expect_contains "$maps" "$LEAN" "the process has edashim's jemalloc for this glibc"
  expect_eq "$shimmed" "$direct" "the child's libraries besides the allocator, the probe and libdl's stub"
  expect_eq "$(ldd "$LEAN" | awk '$1 !~ /^(linux-vdso|\/lib64\/ld-linux)/ { print $1 }')" "libc.so.6" "ldd of the build for glibc 2.34: libc alone"
}

run_suite "$@"
