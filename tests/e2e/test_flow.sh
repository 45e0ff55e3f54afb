#!/usr/bin/env bash
# End-to-end tests of a real Makefile flow through the links (issue 14 item 6):
# examples/ice40/Makefile (yosys synth_ice40 -> nextpnr-ice40 -> icepack) and
# examples/formal/Makefile (yosys-smtbmc driving z3), run unchanged with the shim directory first
# on PATH, against Debian's yosys, nextpnr-ice40, fpga-icestorm and z3 (install/packages.txt).
source "$(dirname "$0")/lib.sh"

ICE40=$SRC/examples/ice40/Makefile
FORMAL=$SRC/examples/formal/Makefile

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }

# log_rows EXPR: EXPR evaluated on every log line (bound to j), one output line each.
log_rows() {
  python3 -c "import json,sys
for l in open(sys.argv[1]).read().splitlines():
    j = json.loads(l); print($1)" "$LOG"
}

test_ice40_makefile_runs_each_tool_through_edashim_with_its_profile() {
  need yosys nextpnr-ice40 icepack
  shim yosys yosys-abc berkeley-abc nextpnr-ice40 icepack
  EDASHIM=off make -s -f "$ICE40" OUT=direct > direct.out 2>&1 || fail "direct run: $(cat direct.out)"
  [ ! -e "$LOG" ] || fail "EDASHIM=off left a log line"
  make -s -f "$ICE40" OUT=shim > shim.out 2>&1 || fail "run through the links: $(cat shim.out)"
  # One line per tool, in the Makefile's order; yosys's ABC is a run of its own with its own
  # profile (issue 26), logged before the yosys run it is part of ends.
  # The shipped profiles: yosys and berkeley-abc jemalloc, everything else the system allocator.
  expect_eq "$(log_rows 'j["tool"], j["allocator"]["requested"], j["allocator_verified"], j["exit_code"]')" \
"berkeley-abc jemalloc True 0
yosys jemalloc True 0
nextpnr-ice40 system True 0
icepack system True 0" "one verified line per tool"
  expect_contains "$(log_rows 'j["allocator"]["library"]' | sed -n 2p)" "libjemalloc.so" "yosys got jemalloc"
  # The same bytes as the plain tools: the netlist, the placed and routed design, the bitstream.
  for f in counter.json counter.asc counter.bin; do
    cmp "direct/$f" "shim/$f" || fail "$f differs between the direct run and the one through edashim"
  done
  [ "$(stat -c %s shim/counter.bin)" -gt 100000 ] || fail "no HX8K bitstream"
}

# The other way in (issue 26 item 8): the same Makefile under `edashim run -- make` with no link
# on PATH gives the same lines as through the links (each tool reached by the exec hook), plus
# one for make, the flow's top; and the same bytes.
test_ice40_makefile_under_edashim_run_without_links_gives_the_links_lines() {
  need yosys nextpnr-ice40 icepack make
  shim yosys yosys-abc berkeley-abc nextpnr-ice40 icepack
  make -s -f "$ICE40" OUT=shim > shim.out 2>&1 || fail "run through the links: $(cat shim.out)"
  local rows='j["tool"], j["allocator"]["requested"], j["allocator_verified"], j["exit_code"], j["argv"][0]'
  local links; links=$(log_rows "$rows")
  expect_eq "$(echo "$links" | wc -l)" 4 "premise: four lines through the links"
  rm -f "$LOG"
  local nolinks; nolinks=$(echo "$PATH" | tr ':' '\n' | grep -vx "$SB/shims" | paste -sd:)
  [[ $nolinks != *"$SB/shims"* ]] || fail "premise: the links are off PATH"
  PATH=$nolinks "$BIN" run -- make -s -f "$ICE40" OUT=run > run.out 2>&1 || fail "under edashim run: $(cat run.out)"
  expect_eq "$(log_rows "$rows" | grep -v '^make ')" "$links" "the same lines, tool by tool"
  local top; top=$(log_rows 'j["run_id"] if j["tool"] == "make" else ""' | grep .)
  [[ -n $top ]] || fail "no line for make, the flow's top"
  expect_eq "$(log_rows 'j["flow"]' | sort -u)" "$top" "one flow, named by its top's run"
  expect_eq "$(log_rows 'j["tool"], j["parent_run"]' | grep -E '^(make|yosys|nextpnr|icepack)')" \
"yosys $top
nextpnr-ice40 $top
icepack $top
make None" "each tool's parent run is make's"
  for f in counter.json counter.asc counter.bin; do
    cmp "shim/$f" "run/$f" || fail "$f differs between the links and edashim run"
  done
}

test_ice40_makefile_follows_a_project_file_per_tool_and_the_bitstream_stays_the_same() {
  need yosys nextpnr-ice40 icepack
  shim yosys yosys-abc berkeley-abc nextpnr-ice40 icepack
  EDASHIM=off make -s -f "$ICE40" OUT=direct > direct.out 2>&1 || fail "direct run: $(cat direct.out)"
  # A project picks an allocator per tool; the Makefile is untouched.
  printf '[tool.yosys]\nallocator = "mimalloc"\n[tool.nextpnr-ice40]\nallocator = "tcmalloc"\n[tool.icepack]\nallocator = "jemalloc"\n' > .edashim.toml
  make -s -f "$ICE40" OUT=shim > shim.out 2>&1 || fail "run through the links: $(cat shim.out)"
  # (yosys' ABC, a run of its own, keeps its shipped profile: the project names no berkeley-abc.)
  expect_eq "$(log_rows 'j["tool"], j["allocator"]["requested"], j["allocator_verified"]')" \
"berkeley-abc jemalloc True
yosys mimalloc True
nextpnr-ice40 tcmalloc True
icepack jemalloc True" "each tool its project allocator, verified"
  # An allocator changes addresses; nextpnr's placement (fixed seed) must not depend on them.
  for f in counter.json counter.asc counter.bin; do
    cmp "direct/$f" "shim/$f" || fail "$f differs under another allocator"
  done
}

test_formal_makefile_drives_z3_through_its_link() {
  need yosys yosys-smtbmc z3
  shim yosys z3
  make -s -f "$FORMAL" > make.out 2>&1 || fail "formal flow: $(cat make.out)"
  for c in bmc prove cover; do
    expect_contains "$(tail -1 build/$c.log)" "Status: PASSED" "$c"
  done
  # yosys once, then one z3 per yosys-smtbmc call (bmc, prove, cover): one process each.
  expect_eq "$(log_rows 'j["tool"]' | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" "yosys=1 z3=3 " "log lines"
  expect_eq "$(log_rows 'j["allocator_verified"]' | sort -u)" "True" "allocator verified in every run"
}

# z3 #6890 reports crashes of newer z3 under third-party allocators (z3 calling glibc's
# malloc_usable_size on their blocks). Debian 12's z3 4.8.12 imports no malloc_usable_size, only
# malloc, free and realloc, which a preload replaces together: it must answer as it does plain.
test_z3_answers_the_same_under_every_preloaded_allocator() {
  need yosys yosys-smtbmc z3
  shim z3
  make -s -f "$FORMAL" build/bcd_counter.smt2 > /dev/null 2>&1 || fail "writing the SMT-LIB model"
  EDASHIM=off yosys-smtbmc -s z3 -i -t 25 --dump-smt2 induction.smt2 build/bcd_counter.smt2 > /dev/null
  for f in induction.smt2 "$SRC"/bench/suite/smt/*.smt2; do
    plain=$(EDASHIM=off z3 "$f"; echo "rc=$?")
    expect_contains "$plain" "sat" "z3 answered $f"
    for a in mimalloc jemalloc tcmalloc tbbmalloc; do
      expect_eq "$(EDASHIM_ALLOCATOR=$a z3 "$f"; echo "rc=$?")" "$plain" "z3 under $a on $(basename "$f")"
      expect_eq "$(last_log "$LOG" 'j["allocator"]["requested"], j["allocator_verified"], j["signal"]')" "$a True None" \
        "$a served z3"
    done
  done
  # And driven interactively by yosys-smtbmc (push/pop over a pipe), under each allocator.
  for a in mimalloc jemalloc tcmalloc tbbmalloc; do
    EDASHIM_ALLOCATOR=$a yosys-smtbmc -s z3 -i -t 25 build/bcd_counter.smt2 > smtbmc.log || fail "smtbmc under $a"
    expect_contains "$(tail -1 smtbmc.log)" "Status: PASSED" "induction under $a"
  done
}

run_suite "$@"
