#!/usr/bin/env bash
# Every way a program starts behaves as the direct call (issue 35, the run's side): a variable a
# caller sets for one tool reaches it as directly and through its link, also under
# `edashim run -- FLOW`; a script whose #! line names a link runs that tool; an ldd-style run
# through a link lists what the tool loads directly. Each test compares with the direct run.
source "$(dirname "$0")/lib.sh"

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }

# The variables edashim sets or changes for a run, as FILE (an `env` listing) has them, sorted.
run_vars() { grep -E '^(OMP_NUM_THREADS|TMPDIR|TMP|TEMP|LC_ALL)=' "$1" | sort; }

# The user's configuration: an [env] variable, a locale and scratch for every run, the flow's
# top included, on any free memory; yosys' link.
env_config() {
  shim yosys
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'scratch = true\nscratch_min_free_mb = 0\nscratch_min_free_percent = 0\nlocale = "C.UTF-8"\n[env]\nOMP_NUM_THREADS = "2"\n' \
    > "$XDG_CONFIG_HOME/edashim/config.toml"
  mkdir -p "$SB/mytmp"
}

# A recipe that sets variables for yosys, and one that does not: each yosys writes its
# environment (through its shell, `!env`) to env-W-set.txt and env-W-inherited.txt.
# `edashim run -- make` must give the first exactly what make gives it directly and through the
# link; the second gets the profile's, as through the link.
test_a_variable_a_recipe_sets_for_a_tool_reaches_it_as_directly_and_through_the_link() {
  need yosys make
  env_config
  cat > Makefile <<MK
all:
	OMP_NUM_THREADS=8 TMPDIR=$SB/mytmp LC_ALL=C \$(YOSYS) -q -p '!env > env-\$(W)-set.txt'
	\$(YOSYS) -q -p '!env > env-\$(W)-inherited.txt'
MK
  make -s YOSYS=/usr/bin/yosys W=direct > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  expect_eq "$(run_vars env-direct-set.txt | tr '\n' ' ')" "LC_ALL=C OMP_NUM_THREADS=8 TMPDIR=$SB/mytmp " "premise: directly"
  make -s YOSYS=yosys W=link > link.out 2>&1 || fail "through the link: $(cat link.out)"
  "$BIN" run -- make -s YOSYS=/usr/bin/yosys W=run > run.out 2>&1 || fail "edashim run: $(cat run.out)"
  "$BIN" run -- make -s YOSYS=yosys W=runlink > runlink.out 2>&1 || fail "edashim run, the link: $(cat runlink.out)"
  for w in link run runlink; do
    expect_eq "$(run_vars env-$w-set.txt)" "$(run_vars env-direct-set.txt)" "$w: the recipe's variables, as directly"
  done
  # Not set by the recipe: the profile's, in a scratch of yosys' own, as through the link.
  expect_eq "$(run_vars env-link-inherited.txt | grep -E '^(OMP|LC_ALL)' | tr '\n' ' ')" "LC_ALL=C.UTF-8 OMP_NUM_THREADS=2 " "link: the profile's"
  for w in run runlink; do
    expect_eq "$(run_vars env-$w-inherited.txt | grep -E '^(OMP|LC_ALL)' | tr '\n' ' ')" "LC_ALL=C.UTF-8 OMP_NUM_THREADS=2 " "$w: the profile's"
    expect_contains "$(grep '^TMPDIR=' env-$w-inherited.txt)" "/edashim-$(id -u)/edashim-$(id -u)-" "$w: a scratch"
  done
  expect_eq "$(log_tools)" "make make yosys yosys yosys yosys yosys yosys " "each yosys a run of its own"
}

log_tools() { python3 -c "import json,sys
print(' '.join(sorted(json.loads(l)['tool'] for l in open(sys.argv[1]))), end=' ')" "$LOG"; }

# Python's subprocess with env=: the same, from a flow script.
test_a_variable_python_sets_with_env_reaches_the_tool_as_directly_and_through_the_link() {
  need yosys python3
  env_config
  cat > flow.py <<'PY'
import os, subprocess, sys
tool, tmp, out = sys.argv[1:]
env = dict(os.environ, OMP_NUM_THREADS="8", TMPDIR=tmp, LC_ALL="C")
subprocess.run([tool, "-q", "-p", "!env > " + out], env=env, check=True)
PY
  local py; py=$(command -v python3)
  "$py" flow.py /usr/bin/yosys "$SB/mytmp" env-direct.txt || fail "direct"
  expect_eq "$(run_vars env-direct.txt | tr '\n' ' ')" "LC_ALL=C OMP_NUM_THREADS=8 TMPDIR=$SB/mytmp " "premise: directly"
  "$py" flow.py yosys "$SB/mytmp" env-link.txt || fail "through the link"
  "$BIN" run -- "$py" flow.py /usr/bin/yosys "$SB/mytmp" env-run.txt || fail "edashim run"
  "$BIN" run -- "$py" flow.py yosys "$SB/mytmp" env-runlink.txt || fail "edashim run, the link"
  for w in link run runlink; do
    expect_eq "$(run_vars env-$w.txt)" "$(run_vars env-direct.txt)" "$w: the variables Python gave, as directly"
  done
}

# A yosys script whose #! line names the link runs yosys through edashim, as `#!/usr/bin/yosys`
# runs it directly; with EDASHIM=off, plain yosys. `#!/usr/bin/env -S yosys ...` finds the link.
test_a_script_whose_hashbang_names_a_link_runs_that_tool() {
  need yosys
  shim yosys
  printf 'module t(input [3:0] a, b, output [3:0] y); assign y = a * b; endmodule\n' > t.v
  script() {  # NAME INTERPRETER-LINE OUTPUT
    printf '#!%s\nread_verilog t.v\nsynth -top t\nwrite_json %s\ntee -q -o %s.stat stat\n' "$2" "$3" "$3" > "$1"
    chmod +x "$1"
  }
  script direct.ys "/usr/bin/yosys -qs" direct.json
  script link.ys "$SB/shims/yosys -qs" link.json
  script env.ys "/usr/bin/env -S yosys -q -s" env.json
  local st=0
  ./direct.ys > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  [ -s direct.json ] || fail "premise: the direct script wrote no netlist"
  ./link.ys > link.out 2>&1 || st=$?
  expect_eq "$st" 0 "through the link: status ($(cat link.out))"
  expect_eq "$(cat link.out)" "$(cat direct.out)" "through the link: output"
  cmp direct.json link.json || fail "through the link: netlist differs"
  expect_eq "$(last_log "$LOG" 'j["tool"], j["path"], j["allocator_verified"]')" "yosys /usr/bin/yosys True" "a yosys run, logged"
  expect_eq "$(last_log "$LOG" 'j["argv"][0]')" "$SB/shims/yosys" "argv[0] as the kernel gave it"
  rm -f "$LOG" link.json
  EDASHIM=off ./link.ys > off.out 2>&1 || fail "EDASHIM=off: $(cat off.out)"
  expect_eq "$(cat off.out)" "$(cat direct.out)" "EDASHIM=off: output"
  cmp direct.json link.json || fail "EDASHIM=off: netlist differs"
  [ ! -e "$LOG" ] || fail "EDASHIM=off left a log line"
  ./env.ys > env.out 2>&1 || fail "#!/usr/bin/env: $(cat env.out)"
  cmp direct.json env.json || fail "#!/usr/bin/env: netlist differs"
  expect_eq "$(last_log "$LOG" 'j["tool"], j["allocator_verified"]')" "yosys True" "#!/usr/bin/env: a yosys run"
}

# `LD_TRACE_LOADED_OBJECTS=1 yosys` (what ldd does) through the link lists what yosys loads
# directly: none of edashim's preloads, no run.
test_an_ldd_style_run_through_the_link_lists_what_the_tool_loads_directly() {
  need yosys
  shim yosys
  libs() { sed 's/ (0x[0-9a-f]*)$//' "$1"; }  # load addresses differ between runs
  local st_direct=0 st_link=0
  LD_TRACE_LOADED_OBJECTS=1 /usr/bin/yosys > direct.txt 2>&1 || st_direct=$?
  grep -q 'libc.so.6' direct.txt || fail "premise: the direct listing names libc: $(cat direct.txt)"
  LD_TRACE_LOADED_OBJECTS=1 yosys > link.txt 2>&1 || st_link=$?
  expect_eq "$(libs link.txt)" "$(libs direct.txt)" "the listing, as directly"
  expect_eq "$st_link" "$st_direct" "the status"
  [ ! -e "$LOG" ] || fail "a run was logged: $(cat "$LOG")"
  # Set empty, ld.so lists all the same: so does the link.
  local st_empty=0
  LD_TRACE_LOADED_OBJECTS= yosys > empty.txt 2>&1 || st_empty=$?
  expect_eq "$(libs empty.txt)" "$(libs direct.txt)" "set empty: the listing, as directly"
  expect_eq "$st_empty" "$st_direct" "set empty: the status"
}

run_suite "$@"
