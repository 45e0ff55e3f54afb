#!/usr/bin/env bash
# Indistinguishable from the tool (issue 13): exec rules, which tool a link is, the user's own
# environment, start failures edashim causes, low descriptor limits. Each test runs the same
# thing directly (the real tool, PATH without the shim directory) and through edashim, and
# compares what the tool saw and what the caller got.
source "$(dirname "$0")/lib.sh"

# direct CMD...: runs CMD with the shim directory off PATH: the tool as without edashim.
direct() { PATH=$SB/real:/usr/local/bin:/usr/bin:/bin "$@"; }

# A file without `#!` that prints how it was started and exits 7.
make_plain_script() {
  printf 'echo "ran by sh: \\$0=$0 args=$*"\nexit 7\n' > "$SB/real/$1"
  chmod +x "$SB/real/$1"
  shim "$1"
}

test_the_tool_is_the_link_executed_and_argv0_passes_unchanged() {
  for name in custom ls edashim; do
    want=$(direct bash -c "exec -a $name mytool args x" 2>&1)
    expect_eq "$want" "$name"$'\nargs\nx' "directly, exec -a $name (the test itself)"
    got=$(bash -c "exec -a $name mytool args x" 2>&1) || true
    expect_eq "$got" "$want" "exec -a $name mytool: what the tool saw"
    expect_eq "$(last_log "$LOG" 'j["tool"] + " " + j["argv"][0]')" "mytool $name" "logged as mytool with argv[0] $name"
  done
  want=$(direct python3 -c 'import subprocess; subprocess.run(["x", "args"], executable="mytool", check=True)')
  got=$(python3 -c 'import subprocess; subprocess.run(["x", "args"], executable="mytool", check=True)' 2>&1) || true
  expect_eq "$got" $'x\nargs' "subprocess executable=: the tool got argv[0] x"
  expect_eq "$got" "$want" "the same as directly"
}


lib_of() { ls /usr/lib/*/"$1" 2>/dev/null | head -1; }

run_suite "$@"
