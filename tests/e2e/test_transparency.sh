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

test_a_file_without_shebang_runs_under_sh_as_execvp_runs_it() {
  make_plain_script plainscript
  # GNU env starts its command with execvp, as make and most programs do.
  rc=0; want=$(direct env plainscript a "b c" 2>&1) || rc=$?
  expect_eq "$rc" 7 "directly (the test itself)"
  expect_contains "$want" "ran by sh: \$0=$SB/real/plainscript args=a b c" "directly, execvp ran it with /bin/sh"
  rc=0; got=$(env plainscript a "b c" 2>&1) || rc=$?
  expect_eq "$got" "$want" "through edashim, what the tool printed"
  expect_eq "$rc" 7 "through edashim, the status"
  expect_eq "$(last_log "$LOG" 'j["status"]')" 7 "logged as a run of the tool"
  # The same for the plain path (EDASHIM=off) and `edashim run` with an explicit path.
  rc=0; got=$(EDASHIM=off env plainscript a "b c" 2>&1) || rc=$?
  expect_eq "$got $rc" "$want 7" "EDASHIM=off"
  rc=0; got=$("$BIN" run -- "$SB/real/plainscript" a "b c" 2>&1) || rc=$?
  expect_eq "$got $rc" "$want 7" "edashim run -- PATH"
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

test_three_descriptors_degrade_quietly() {
  # ulimit -n 3: stdin, stdout and stderr, nothing more; /etc/edashim/config.toml does not
  # exist. A dynamic tool cannot even load libc then, a static one runs: through edashim, each
  # does exactly what it does directly. The redirections are made before the limit (bash needs
  # descriptors of its own for them).
  command -v gcc >/dev/null || skip "gcc not installed"
  gcc -O2 -static "$SRC/tests/helpers/helper_tool.c" -o "$SB/real/stool" 2>/dev/null || skip "no static libc (libc6-dev)"
  shim stool
  # Scratch and probe on; the system allocator, since the static tool would get a (once only)
  # pre-flight note about a preload that cannot reach it.
  printf 'allocator = "system"\nscratch = true\nprobe = true\n' > .edashim.toml
  for n in 3 4 5 6 8; do
    for t in stool mytool; do
      rc=0; (ulimit -n $n; PATH=$SB/real:/usr/bin:/bin exec $t args a) >"$SB/want.out" 2>"$SB/want.err" || rc=$?
      want="$(cat "$SB/want.out" "$SB/want.err") $rc"
      [[ $t != stool ]] || expect_eq "$want" $'stool\nargs\na 0' "ulimit -n $n, $t directly (the test itself)"
      rc=0; (ulimit -n $n; exec $t args a) >"$SB/got.out" 2>"$SB/got.err" || rc=$?
      expect_eq "$(cat "$SB/got.out" "$SB/got.err") $rc" "$want" "ulimit -n $n, $t through edashim: output, errors and status"
    done
  done
}

run_suite "$@"
