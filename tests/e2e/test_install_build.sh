#!/usr/bin/env bash
# install.sh's build step (issue 28 item 7): the build's progress is shown while it runs, and a
# failed build's full log is kept at a path install.sh prints. A stand-in cmake (first on PATH)
# configures nothing and "builds" by printing what a real build prints, then fails: the real
# build takes minutes, and its failure cannot be had on demand.
source "$(dirname "$0")/lib.sh"

fake_cmake() {
  cat > "$SB/real/cmake" <<'SH'
#!/bin/sh
case "$1" in
  -S) mkdir -p "$4"; exit 0 ;;  # configure: cmake -S SRC -B DIR ...
  --build)
    echo "the first line of a long log"
    for i in $(seq 1 60); do echo "compiler chatter $i"; done
    for p in 3 12 25 38 51 64; do printf '[%3d%%] Building CXX object shim/x%d.cpp.o\n' "$p" "$p"; done
    echo "shim/x64.cpp:1:1: error: the planted failure"
    exit 2 ;;
esac
echo "fake cmake: unexpected $*" >&2; exit 3
SH
  chmod +x "$SB/real/cmake"
}

test_install_shows_build_progress_and_keeps_a_failed_builds_log() {
  fake_cmake
  rc=0
  out=$(bash "$SRC/install/install.sh" --no-packages --prefix "$SB/prefix" --build-dir "$SB/build" --no-example --yes \
    </dev/null 2>&1) || rc=$?
  expect_eq "$rc" 1 "a failed build fails install.sh"
  expect_contains "$out" "install.sh:   build: 3% after" "the build's own percentage"
  expect_contains "$out" "install.sh:   build: 25% after" "every ten points"
  expect_not_contains "$out" "build: 12% after" "not every line"
  expect_contains "$out" "the planted failure" "the build's last lines"
  expect_contains "$out" "the full log is kept in $SB/build/install-build.log" "where the log is"
  [ -f "$SB/build/install-build.log" ] || fail "the log it names is gone: $out"
  expect_eq "$(head -1 "$SB/build/install-build.log")" "the first line of a long log" "the whole log, not its tail"
  expect_eq "$(grep -c '^\[' "$SB/build/install-build.log")" 6 "every progress line in the log"
}

run_suite "$@"
