#!/usr/bin/env bash
# The suite's own rules, checked against the real harnesses (issue 11):
# - an e2e test that calls `skip` is counted as skipped and its run exits 77 (ctest: Skipped);
# - an e2e run naming no existing test fails instead of passing with nothing run;
# - a unit case that skips makes unit_tests exit 77, and a filter matching no case fails;
# - an e2e check that failed fails its test wherever it ran (issue 27): after `|| true`, inside
#   $(...), in a helper called as a condition, or before a skip;
# - the patterns that lost failures do not come back: `&& fail ... || true`, a `return` in an
#   e2e test function (a guard that ends a test as passed), `if (...) return;` in a unit test
#   (a case that cannot run here calls EDASHIM_SKIP), FAIL printed by hand in an e2e suite;
# - these checks' own failures are never turned into a skip.
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
test_fail_last() { true; false || fail "planted: the last statement"; }
test_fail_swallowed() { true && fail "planted: after || true" || true; echo "must not be reached"; }
test_fail_in_substitution() { x=\$(fail "planted: inside \\\$(...)"; echo y) || true; }
helper_checks() { fail "planted: in a helper"; }
test_fail_in_condition() { if helper_checks; then true; fi; echo "must not be reached"; }
test_fail_noted() { note_fail "planted: noted" || true; }
test_fail_then_skip() { note_fail "planted: before a skip" || true; skip "later"; }
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
{ cat "$T/suite.sh"; echo 'test_defined_after_run_suite() { true; }'; } > "$T/late.sh"
bash "$T/late.sh" "$BIN" "$HELPER" "$SRC" test_defined_after_run_suite >/dev/null 2>&1; rc=$?
check "a test defined after run_suite runs nothing and fails" 1 "$rc"
for t in test_fail_last test_fail_swallowed test_fail_in_substitution test_fail_in_condition \
    test_fail_noted test_fail_then_skip; do
  out=$(bash "$T/suite.sh" "$BIN" "$HELPER" "$SRC" "$t" 2>&1); rc=$?
  check "$t: the e2e test fails" "1 0 passed, 1 failed, 0 skipped" "$rc $(tail -1 <<<"$out")"
  [[ "$out" != *"must not be reached"* ]] || { echo "FAIL: $t went on after fail"; failed=1; }
  kept=$(sed -n 's/.*sandbox kept at \(\/tmp\/edashim-e2e-[A-Za-z0-9]*\))$/\1/p' <<<"$out")
  [[ -z "$kept" ]] || rm -rf "$kept"
done

# The patterns that lost failures, in the suites themselves.
pattern() {  # pattern WHAT MATCHES
  if [[ -z "$2" ]]; then echo "ok: no $1"; else echo "FAIL: $1:"; echo "$2"; failed=1; fi
}
# Every shell file under tests/ but this one, whose planted test_fail_swallowed has the pattern on purpose.
pattern "'&& fail ... || true' in tests/: it can never fail (write 'cond || fail MSG')" \
  "$(grep -rnE --include='*.sh' '&&[[:space:]]*(note_)?fail\b.*\|\|[[:space:]]*(true|:)' "$SRC"/tests | grep -v '/tests/suite/honesty\.sh:')"
# A test function's body runs from 'test_NAME() {' to the first '}' at the start of a line
# (or to the end of its first line, for a one-line test).
pattern "'return' in an e2e test function: it ends the test as passed (use skip REASON)" \
  "$(awk '/^test_[A-Za-z0-9_]*\(\) *\{/ {t = 1} t && /(^|[^A-Za-z0-9_])return([^A-Za-z0-9_]|$)/ {print FILENAME ":" FNR ": " $0}
         t && (/^\}/ || /^test_.*\} *$/) {t = 0}' "$SRC"/tests/e2e/*.sh)"
# test_install.sh is a script of its own, whose fail exits.
pattern "'FAIL' printed by hand in an e2e test: nothing counts it (call fail MSG)" \
  "$(grep -nE '(echo|printf)[^|;]*FAIL:' "$SRC"/tests/e2e/test_*.sh | grep -v '^[^:]*/test_install\.sh:')"
pattern "'if (...) return;' in a unit test: the case passes without running (use EDASHIM_SKIP)" \
  "$(grep -nE '^[[:space:]]*if[[:space:]]*\(.*\)[[:space:]]*return;' "$SRC"/tests/unit/*.cpp)"

"$UNIT" "no such test case" -w NoTests >/dev/null 2>&1; rc=$?
if [[ $rc -ne 0 ]]; then echo "ok: a unit filter matching nothing fails ($rc)"
else echo "FAIL: a unit filter matching nothing passed"; failed=1; fi
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
  # As nobody, the root-only case must skip (77), not pass.
  cp "$UNIT" "$T/unit_tests" && chmod 755 "$T" "$T/unit_tests"
  (cd "$T" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T" TMPDIR="$T" \
    ./unit_tests "Trust: the upward search stops at a directory another user owns" -w NoTests >/dev/null 2>&1); rc=$?
  check "a unit case that cannot run as nobody exits 77" 77 "$rc"
elif [[ $failed == 0 ]]; then
  echo "SKIPPED: needs root and setpriv to run a case as another user"
  exit 77
fi
[[ $failed == 0 ]] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $failed
