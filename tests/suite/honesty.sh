#!/usr/bin/env bash
# The suite's own rules, checked against the real harnesses (issue 11):
# - an e2e test that calls `skip` is counted as skipped and its run exits 77 (ctest: Skipped);
# - an e2e run naming no existing test fails instead of passing with nothing run;
# - a unit case that skips makes unit_tests exit 77, and a filter matching no case fails.
# Usage: honesty.sh SOURCE_DIR UNIT_TESTS_BINARY EDASHIM HELPER
set -uo pipefail
SRC=${1:?source dir}; UNIT=${2:?unit_tests}; BIN=${3:?edashim}; HELPER=${4:?helper_tool}
T=$(mktemp -d /tmp/edashim-honesty-XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
check() {  # check WHAT EXPECTED ACTUAL
  if [[ "$2" == "$3" ]]; then echo "ok: $1"; else echo "FAIL: $1: expected [$2], got [$3]"; failed=1; fi
}

cat >"$T/suite.sh" <<SUITE
source "$SRC/tests/e2e/lib.sh"
test_runs() { true; }
test_cannot_run_here() { skip "premise missing"; echo "must not be reached"; false; }
run_suite "\$@"
SUITE
out=$(bash "$T/suite.sh" "$BIN" "$HELPER" "$SRC" test_cannot_run_here 2>&1); rc=$?
check "a skipping e2e test exits 77" 77 "$rc"
check "and is counted as skipped" "0 passed, 0 failed, 1 skipped" "$(tail -1 <<<"$out")"
[[ "$out" != *"must not be reached"* ]] || { echo "FAIL: the test went on after skip"; failed=1; }
out=$(bash "$T/suite.sh" "$BIN" "$HELPER" "$SRC" test_runs 2>&1); rc=$?
check "a passing e2e test exits 0" 0 "$rc"
bash "$T/suite.sh" "$BIN" "$HELPER" "$SRC" test_no_such_test >/dev/null 2>&1; rc=$?
check "an e2e entry naming no test fails" 1 "$rc"

"$UNIT" "no such test case" -w NoTests >/dev/null 2>&1; rc=$?
[[ $rc -ne 0 ]] || { echo "FAIL: a unit filter matching nothing passed"; failed=1; }
echo "ok: a unit filter matching nothing fails ($rc)"
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
  # As nobody, the root-only case must skip (77), not pass.
  cp "$UNIT" "$T/unit_tests" && chmod 755 "$T" "$T/unit_tests"
  (cd "$T" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T" TMPDIR="$T" \
    ./unit_tests "Trust: the upward search stops at a directory another user owns" -w NoTests >/dev/null 2>&1); rc=$?
  check "a unit case that cannot run as nobody exits 77" 77 "$rc"
else
  echo "SKIPPED: needs root and setpriv to run a case as another user"
  exit 77
fi
[[ $failed == 0 ]] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $failed
