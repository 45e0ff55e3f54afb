#!/usr/bin/env bash
# End-to-end tests of the exec hook (issue 26): a flow run as `edashim run -- FLOW` reaches tools
# called by absolute path, each with its own profile and log line; nothing edashim preloads goes
# where the program's loader cannot load it; the hook changes nothing else. Every test compares
# with the same command run directly (EDASHIM=off).
source "$(dirname "$0")/lib.sh"

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }

# log_rows EXPR: EXPR evaluated on every log line (bound to j), one output line each.
log_rows() {
  python3 -c "import json,sys
for l in open(sys.argv[1]).read().splitlines():
    j = json.loads(l); print($1)" "$LOG"
}

design() {
  printf 'module t(input [3:0] a, b, output [3:0] y); assign y = a * b; endmodule\n' > t.v
  printf 'read_verilog t.v\nsynth -top t\nwrite_json %s\n' "$1" > synth.ys
}

# The lines of a flow that ran yosys (which runs ABC) by absolute path under make or Python.
check_yosys_flow() {
  local top=$1
  # One line for the flow's top, one for yosys, one per ABC run, each with its own profile.
  expect_eq "$(log_rows 'j["tool"]' | sort -u | tr '\n' ' ')" "berkeley-abc $top yosys " "tools logged"
  # (The top's own verdict is its own business: Python's executable serves its own malloc.)
  expect_eq "$(log_rows 'j["tool"], j["allocator"]["requested"], j["exit_code"]' | grep "^$top " | sort -u)" "$top system 0" "the top runs plain"
  expect_eq "$(log_rows '"" if j["tool"] == "'"$top"'" else (j["allocator"]["requested"], j["allocator_verified"], j["exit_code"])' | grep . | sort | uniq -c | awk '{$1=$1};1' | tr '\n' '|')" \
    "$(( $(log_rows 'j["tool"]' | grep -c abc) + 1 )) ('jemalloc', True, 0)|" "yosys and ABC: their profiles' allocator, verified"
  expect_eq "$(log_rows 'j["path"] if j["tool"] == "yosys" else ""' | grep .)" "/usr/bin/yosys" "yosys by its own path"
  expect_contains "$(log_rows 'j["allocator"]["library"] if j["tool"] == "yosys" else ""' | grep .)" "libjemalloc.so" "yosys got jemalloc"
  # ABC ran in its own run, not inside yosys' tree with yosys' allocator.
  expect_not_contains "$(log_rows '[p["exe"] for p in j["processes"]] if j["tool"] == "yosys" else ""')" "abc" "ABC not in yosys' run"
  expect_eq "$(log_rows 'j["argv"][0] if j["tool"] == "yosys" else ""' | grep .)" "/usr/bin/yosys" "argv[0] unchanged"
}

test_makefile_calling_yosys_by_absolute_path_gives_yosys_its_profile() {
  need yosys make
  design out.json
  printf 'all:\n\t/usr/bin/yosys -q -s synth.ys\n' > Makefile
  EDASHIM=off make -s > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  mv out.json direct.json
  [ ! -e "$LOG" ] || fail "EDASHIM=off left a log line"
  "$BIN" run -- make -s > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output"
  cmp direct.json out.json || fail "netlist differs"
  check_yosys_flow make
}

test_python_script_calling_yosys_by_absolute_path_gives_yosys_its_profile() {
  need yosys python3
  design out.json
  cat > flow.py <<'PY'
import subprocess, sys
r = subprocess.run(["/usr/bin/yosys", "-q", "-s", "synth.ys"])
print("yosys exited", r.returncode)
sys.exit(r.returncode)
PY
  local py; py=$(command -v python3)
  EDASHIM=off "$py" flow.py > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  mv out.json direct.json
  "$BIN" run -- "$py" flow.py > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output"
  cmp direct.json out.json || fail "netlist differs"
  check_yosys_flow "$(basename "$py")"
}

# An OSS-CAD-Suite-like bundle: its own loader and libc in lib/, the binary in libexec/, and the
# bundle's wrapper in bin/ that runs the loader by hand. The same glibc as the system's: the
# allocator loads there, so it is applied and verified.
make_bundle() {
  local top=$1
  mkdir -p "$top/lib" "$top/libexec" "$top/bin"
  cp /usr/bin/yosys "$top/libexec/yosys"
  cp -L /lib64/ld-linux-x86-64.so.2 "$top/lib/"
  ldd /usr/bin/yosys | awk '$3 ~ /^\// {print $3}' | while read -r l; do cp -L "$l" "$top/lib/"; done
  cat > "$top/bin/yosys" <<SH
#!/usr/bin/env bash
top=\$(cd "\$(dirname "\$0")/.." && pwd)
exec \$top/lib/ld-linux-x86-64.so.2 --inhibit-cache --inhibit-rpath "" --library-path \$top/lib \$top/libexec/yosys "\$@"
SH
  chmod +x "$top/bin/yosys"
}

test_bundle_with_its_own_loader_runs_with_the_allocator_verified() {
  need yosys make
  make_bundle "$SB/bundle"
  printf 'module t(input [3:0] a, b, output [3:0] y); assign y = a * b; endmodule\n' > t.v
  printf 'all:\n\t%s -q -p "read_verilog t.v; synth -noabc -top t; write_json out.json"\n' "$SB/bundle/bin/yosys" > Makefile
  EDASHIM=off make -s > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  mv out.json direct.json
  "$BIN" run -- make -s > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output"
  cmp direct.json out.json || fail "netlist differs"
  expect_eq "$(log_rows 'j["tool"], j["path"], j["allocator"]["requested"], j["allocator_verified"], j["not_applied"]' | head -1)" \
    "yosys $SB/bundle/bin/yosys jemalloc True []" "the bundle's yosys, verified"
  expect_contains "$(log_rows '[p["malloc"] for p in j["processes"] if p["exe"].endswith("ld-linux-x86-64.so.2")]' | head -1)" \
    "libjemalloc" "malloc from jemalloc in the process the bundle's loader started"
}

# A program built with musl, started by a wrapper that runs musl's loader by hand, through its
# link: it starts and ends exactly as directly, nothing preloaded, and the log line says why.
test_musl_tool_behind_its_loader_starts_as_directly_with_the_reason_logged() {
  need musl-gcc
  [ -x /lib/ld-musl-x86_64.so.1 ] || skip "no /lib/ld-musl-x86_64.so.1 (musl)"
  cat > hello.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  const char* p = getenv("LD_PRELOAD");
  printf("hello from musl, %d args, LD_PRELOAD=[%s]\n", argc, p ? p : "");
  exit(3);
}
C
  musl-gcc -o "$SB/real/hello-musl" hello.c || fail "musl-gcc failed"
  printf '#!/bin/sh\nexec /lib/ld-musl-x86_64.so.1 --library-path /usr/lib/x86_64-linux-musl %s "$@"\n' \
    "$SB/real/hello-musl" > "$SB/real/musltool"
  chmod +x "$SB/real/musltool"
  shim musltool
  local direct st_direct via st_via
  st_direct=0; direct=$(EDASHIM=off musltool a b 2>&1) || st_direct=$?
  st_via=0; via=$(musltool a b 2>&1) || st_via=$?
  expect_eq "$st_direct" 3 "direct status"
  expect_eq "$via" "$direct" "same output, nothing preloaded"
  expect_eq "$st_via" "$st_direct" "same status"
  # The run's own process (the wrapper's sh) went on as a program edashim's library cannot load
  # into: nobody is left to tell its end, and the line, from the next sweep, says so.
  sweep_lines 1 "the run's line"
  expect_eq "$(last_log "$LOG" 'j["tool"], j["exit_code"], j["ended"]')" \
    "musltool None not told: the run's process went on as $SB/real/hello-musl (not_applied says why)" "logged"
  expect_eq "$(last_log "$LOG" 'j["not_applied"]')" \
    "['allocator not applied to $SB/real/hello-musl: loader /lib/ld-musl-x86_64.so.1, needs glibc, has musl']" "the reason"
}

# An ELF whose PT_INTERP is a copy of the loader with no libc beside it: run through its link
# (pre-flight) and from a script (the hook), it starts as directly with nothing preloaded.
make_foreign() {
  mkdir -p "$SB/ldcopy"
  cp -L /lib64/ld-linux-x86-64.so.2 "$SB/ldcopy/ld-linux-x86-64.so.2"
  cat > foreign.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  const char* p = getenv("LD_PRELOAD");
  printf("foreign loader, LD_PRELOAD=[%s]\n", p ? p : "");
  exit(5);
}
C
  gcc -o "$SB/real/foreign" -Wl,--dynamic-linker="$SB/ldcopy/ld-linux-x86-64.so.2" foreign.c || fail "gcc failed"
}

test_foreign_pt_interp_starts_as_directly_with_nothing_preloaded() {
  need gcc
  make_foreign
  printf '#!/bin/sh\n%s\necho "after: $?"\n' "$SB/real/foreign" > "$SB/real/callsforeign"
  chmod +x "$SB/real/callsforeign"
  shim foreign callsforeign
  local direct st_direct via st_via
  st_direct=0; direct=$(EDASHIM=off foreign 2>&1) || st_direct=$?
  expect_eq "$direct $st_direct" "foreign loader, LD_PRELOAD=[] 5" "direct"
  # The program itself (pre-flight): nothing preloaded, the reason in explain and the log.
  st_via=0; via=$(foreign 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "through its link"
  expect_eq "$(last_log "$LOG" 'j["preflight"]["blocker"]')" "foreign-loader" "pre-flight's verdict"
  expect_contains "$("$BIN" explain foreign)" "started by the loader $SB/ldcopy/ld-linux-x86-64.so.2" "explain says why"
  # Started from a script edashim preloads into: the hook takes edashim's libraries out.
  st_direct=0; direct=$(EDASHIM=off callsforeign 2>&1) || st_direct=$?
  st_via=0; via=$(callsforeign 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "from a script"
  # The highest version edashim's preloaded libraries need from libc (the probe alone needs
  # nothing past GLIBC_2.28: tests/suite/glibc_floor.sh).
  local needs
  needs=$(for l in $(last_log "$LOG" 'j["env_set"].get("LD_PRELOAD", "")' | tr ':' ' '); do
    objdump -p "$l" | sed -n '/required from libc.so.6/,/required from [^l]/p'; done | grep -oE 'GLIBC_[0-9.]+' | sort -uV | tail -1)
  expect_eq "$(last_log "$LOG" 'j["not_applied"]')" \
    "['allocator not applied to $SB/real/foreign: loader $SB/ldcopy/ld-linux-x86-64.so.2, needs $needs, has no libc.so.6 beside it']" \
    "the reason"
}

# make -j4 starts recipes with posix_spawn (GNU make 4.3) and some through /bin/sh: with the hook
# in make and every shell, the same files, output and status as directly, a failing command's
# error included (errno through the hook).
test_make_j4_spawning_many_recipes_gives_the_same_results() {
  need make gcc
  {
    printf 'N := $(shell seq 1 300)\nall: $(addprefix out/,$(N)) bad\n'
    printf 'out/%%: | out\n\techo $* $$(( $* * 7 )) > $@\n'
    printf 'out:\n\tmkdir -p out\n'
    printf 'bad:\n\t./badinterp --flag\n'
  } > Makefile
  # make checks that a command exists before it spawns it: a program whose loader is missing
  # gets past that and fails in posix_spawn (ENOENT), whose error make reports.
  printf '#include <stdlib.h>\nint main(void) { exit(0); }\n' > badinterp.c
  gcc -o badinterp -Wl,--dynamic-linker=/nonexistent/ld-linux-x86-64.so.2 badinterp.c || fail "gcc failed"
  local direct st_direct via st_via
  st_direct=0; EDASHIM=off make -k -j4 -s > direct.out 2>&1 || st_direct=$?
  direct=$(sort direct.out)
  cat out/* | sort > direct.txt
  rm -rf out
  st_via=0; "$BIN" run -- make -k -j4 -s > hook.out 2>&1 || st_via=$?
  via=$(sort hook.out)
  cat out/* | sort > hook.txt
  expect_contains "$direct" "badinterp: No such file or directory" "the failed spawn's error"
  expect_eq "$via" "$direct" "same output and error messages"
  expect_eq "$st_via" "$st_direct" "same status"
  expect_eq "$st_direct" 2 "make's status for the failed recipe"
  cmp direct.txt hook.txt || fail "recipes' files differ"
  expect_eq "$(wc -l < hook.txt)" 300 "every recipe ran"
  # The hook was there, in make: it took edashim's libraries out for the foreign loader and said so.
  expect_contains "$(last_log "$LOG" 'j["not_applied"]')" "./badinterp: loader /nonexistent/ld-linux-x86-64.so.2" "the hook's note"
  # make, a flow's top, runs plain: its 300 recipes' processes are not recorded (each cost ~50 us).
  expect_eq "$(last_log "$LOG" 'j["processes"], j["allocator_verified"]')" "None False" "no records for the flow's top"
  expect_contains "$(last_log "$LOG" 'j["verification"]')" "a flow's top" "the line says why"
}

# EDASHIM=off inside a flow: the tools under it run as called, with no line of their own.
test_edashim_off_under_a_flow_leaves_every_exec_untouched() {
  need yosys make gcc
  design out.json
  make_foreign
  # The foreign-loader program still loads what it inherits here (its loader is a copy of the
  # system's): with the hook off, its LD_PRELOAD is make's, untouched.
  printf 'all:\n\tEDASHIM=off /usr/bin/yosys -q -s synth.ys\n\t-@EDASHIM=off %s\n' "$SB/real/foreign" > Makefile
  "$BIN" run -- make -s > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_contains "$(grep 'foreign loader' hook.out)" "libedashim_probe.so]" "the exec left as it was"
  expect_eq "$(log_rows 'j["tool"]')" "make" "only make's line: yosys and ABC ran inside make's run, as called"
  [ -s out.json ] || fail "yosys wrote no netlist"
}

# A tool whose file name is generic (bin/tool) is routed by the [tool.NAME] path in the user's
# config: by that path, and by another path to the same file under the same name.
test_a_tool_path_in_your_config_routes_a_generic_file_name() {
  need make
  mkdir -p "$SB/opt/bin" "$XDG_CONFIG_HOME/edashim"
  cp "$HELPER" "$SB/opt/bin/tool"
  printf '[tool.placer]\npath = "%s"\nallocator = "jemalloc"\n' "$SB/opt/bin/tool" > "$XDG_CONFIG_HOME/edashim/config.toml"
  printf 'all:\n\t%s args one\n\tcd %s && ./bin/tool args two\n' "$SB/opt/bin/tool" "$SB/opt" > Makefile
  EDASHIM=off make -s > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  [ ! -e "$LOG" ] || fail "EDASHIM=off left a log line"
  "$BIN" run -- make -s > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output, argv[0] as called"
  expect_eq "$(log_rows 'j["tool"], j["allocator"]["requested"], j["allocator_verified"], j["path"]' | sort | tr '\n' '|')" \
    "make system False $(command -v make)|placer jemalloc True $SB/opt/bin/tool|placer jemalloc True $SB/opt/bin/tool|" \
    "both calls: placer's profile, verified, its own line"
}

# The same section in a project file nobody trusted routes nothing: its path is not a program
# the user chose. The tool runs as called, inside make's run.
test_an_untrusted_project_files_tool_path_routes_nothing() {
  need make
  mkdir -p "$SB/opt/bin"
  cp "$HELPER" "$SB/opt/bin/tool"
  printf '[tool.placer]\npath = "%s"\nallocator = "jemalloc"\n' "$SB/opt/bin/tool" > .edashim.toml
  printf 'all:\n\t%s args one\n' "$SB/opt/bin/tool" > Makefile
  EDASHIM=off make -s > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  "$BIN" run -- make -s > hook.out 2> hook.err || fail "through edashim run: $(cat hook.out hook.err)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output"
  expect_eq "$(log_rows 'j["tool"]')" "make" "no line for placer: not routed"
}

# The hook remembers the last programs it found needed nothing done (make starts the same ones
# thousands of times); a program replaced in place between two recipes is looked at again. The
# replacing is done by a program under another loader, which the hook never remembers: a plain
# `cp` would take a place in memory and could hide a stale entry.
test_a_program_replaced_between_two_recipes_is_looked_at_again() {
  need make gcc
  printf '#include <stdlib.h>\nint main(void) { exit(0); }\n' > badinterp.c
  gcc -o badinterp -Wl,--dynamic-linker=/nonexistent/ld-linux-x86-64.so.2 badinterp.c || fail "gcc failed"
  mkdir -p "$SB/ld" && cp -L /lib64/ld-linux-x86-64.so.2 "$SB/ld/"
  cat > mover.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char** argv) {  /* copies argv[1] over argv[2] in place: the same inode */
  char buf[65536];
  int in = open(argv[1], O_RDONLY), out = open(argv[2], O_WRONLY | O_TRUNC);
  ssize_t n;
  if (argc != 3 || in < 0 || out < 0) exit(1);
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) exit(1);
  exit(n < 0);
}
C
  gcc -o mover -Wl,--dynamic-linker="$SB/ld/ld-linux-x86-64.so.2" mover.c || fail "gcc failed"
  cp "$HELPER" prog
  local inode; inode=$(stat -c %i prog)
  # make starts each line itself (posix_spawn, no shell), all from one process.
  printf 'all:\n\t./prog exit 0\n\t./prog exit 0\n\t./mover badinterp prog\n\t-./prog\n' > Makefile
  local st_direct=0 st_via=0
  EDASHIM=off make -s > direct.out 2>&1 || st_direct=$?
  cp "$HELPER" prog  # back as it was, the same inode
  expect_eq "$(stat -c %i prog)" "$inode" "premise: put back in place"
  "$BIN" run -- make -s > hook.out 2>&1 || st_via=$?
  expect_eq "$st_via" "$st_direct" "same status as directly"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output and make's error for the replaced program"
  expect_eq "$(stat -c %i prog)" "$inode" "premise: replaced in place"
  expect_contains "$(last_log "$LOG" 'j["not_applied"]')" \
    "allocator not applied to ./prog: loader /nonexistent/ld-linux-x86-64.so.2" "the replaced program's loader was looked at"
}

# Under a flow's top (nothing records), a program that can start no other (cat: libc alone, no
# exec, spawn, system or dlopen) runs without the hook, its environment as directly; one that can
# (a launcher calling execv, built by the test) keeps it, so the tool it starts is still routed.
# A user's own preload keeps the hook beside it, and a tool's run (which records) keeps it all.
test_a_program_that_starts_none_runs_without_the_hook_and_one_that_can_keeps_it() {
  need yosys make gcc
  design out.json
  printf '#include <unistd.h>\nint main(int c, char** v) { (void)c; execv(v[1], v + 1); _exit(127); }\n' > launcher.c
  gcc -o launcher launcher.c || fail "gcc failed"
  printf 'void user_preload(void) {}\n' > user.c
  gcc -shared -fPIC -o user.so user.c || fail "gcc failed"
  printf 'all:\n\tcat /proc/self/maps > leaf.maps\n\tcat /proc/self/environ > leaf.env\n\t./launcher /usr/bin/yosys -q -s synth.ys\n' > Makefile
  # What cat has mapped (files) and its environment, to compare with the direct run's.
  objects() { awk '$6 ~ /^\// {print $6}' leaf.maps | sort -u; }
  environment() { tr '\0' '\n' < leaf.env | grep -vE "^(${1})=" | sort; }
  EDASHIM=off make -s > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  objects > direct.maps
  environment 'EDASHIM|_' > direct.env  # _: the shell's name of the command it ran
  rm -f "$LOG"
  "$BIN" run -- make -s > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output"
  expect_not_contains "$(cat leaf.maps)" "libedashim_probe" "cat runs without the hook"
  expect_not_contains "$(tr '\0' '\n' < leaf.env)" "LD_PRELOAD=" "cat's environment has no LD_PRELOAD"
  expect_eq "$(objects)" "$(cat direct.maps)" "cat maps the files it maps directly"
  # The flow's id and edashim's own markers are the only difference (they name the flow).
  expect_eq "$(environment 'EDASHIM_FLOW|__EDASHIM_[A-Z_]*|_')" "$(cat direct.env)" "cat's environment as directly, but the flow's markers"
  expect_eq "$(log_rows 'j["tool"], j["allocator"]["requested"], j["allocator_verified"]' | grep '^yosys ' | sort -u)" \
    "yosys jemalloc True" "the launcher kept the hook: yosys routed, its allocator verified"
  LD_PRELOAD=$PWD/user.so "$BIN" run -- make -s > user.out 2>&1 || fail "with a user's preload: $(cat user.out)"
  expect_contains "$(cat leaf.maps)" "$PWD/user.so" "the user's preload, as given"
  expect_contains "$(cat leaf.maps)" "libedashim_probe" "and the hook beside it"
  "$BIN" run -- /usr/bin/yosys -q -p '!cat /proc/self/maps > leaf.maps' > tool.out 2>&1 || fail "a tool's run: $(cat tool.out)"
  expect_contains "$(cat leaf.maps)" "libjemalloc" "a tool's child keeps the tool's allocator"
  expect_contains "$(cat leaf.maps)" "libedashim_probe" "and the probe, which records it"
  expect_eq "$(last_log "$LOG" 'j["allocator_verified"], len(j["processes"]) >= 3')" "True True" "the child recorded and verified"
  # With the records off (probe = false), the hook stays out of nothing that has an allocator.
  mkdir -p "$XDG_CONFIG_HOME/edashim"
  printf 'probe = false\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  "$BIN" run -- /usr/bin/yosys -q -p '!cat /proc/self/maps > leaf.maps' > tool.out 2>&1 || fail "probe off: $(cat tool.out)"
  expect_eq "$(last_log "$LOG" 'j["processes"]')" "None" "premise: nothing recorded"
  expect_contains "$(cat leaf.maps)" "libjemalloc" "with the probe off, a tool's child keeps the tool's allocator"
}

# `edashim run -- yosys` runs a tool, not a flow's top: its profile's allocator, every process
# recorded and the allocator verified, the same netlist as directly. So does a tool whose shipped
# profile keeps glibc's malloc (z3): no allocator, but a tool's run, not a flow's top.
test_edashim_run_of_a_tool_with_a_profile_is_not_a_flows_top() {
  need yosys z3
  printf '(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n' > q.smt2
  local z3_direct; z3_direct=$(EDASHIM=off /usr/bin/z3 q.smt2 2>&1)
  expect_eq "$("$BIN" run -- /usr/bin/z3 q.smt2 2>&1)" "$z3_direct" "z3: same answer"
  expect_eq "$(last_log "$LOG" 'j["tool"], j["allocator"]["requested"], j["allocator_verified"], j["processes"] is not None')" \
    "z3 system True True" "z3: a tool's run, its processes recorded and glibc's malloc verified"
  design out.json
  EDASHIM=off /usr/bin/yosys -q -s synth.ys > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  mv out.json direct.json
  "$BIN" run -- /usr/bin/yosys -q -s synth.ys > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output"
  cmp direct.json out.json || fail "netlist differs"
  expect_eq "$(log_rows 'j["tool"], j["allocator"]["requested"], j["allocator_verified"], j["processes"] is not None' | grep '^yosys ')" \
    "yosys jemalloc True True" "yosys' profile, its processes recorded and verified"
}

# The Python flow of the test below: each call's answer, or its OSError's errno.
lookup_flow() {
  cat <<PY
import os, subprocess
def attempt(label, f):
    try:
        print(label, f())
    except OSError as e:
        print(label, type(e).__name__, e.errno)
def out(argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    return r.returncode, r.stdout.splitlines()[:1]
attempt("z3 by name", lambda: out(["z3", "--version"]))
attempt("yosys by name", lambda: out(["yosys", "-V"]))
try:
    r = out(["$SB/opt/x/bin/yosys", "-V"])
except FileNotFoundError:
    r = ("fallback", out(["yosys", "-V"]))
print("fallback", r)
def spawn(path):
    pid = os.posix_spawn(path, [path, "-V"], os.environ)
    return os.waitpid(pid, 0)[1]
attempt("spawn missing", lambda: spawn("$SB/opt/x/bin/yosys"))
attempt("fifo", lambda: out(["$SB/fifo-prog"]))
PY
}

# A tool's name that the real call would not start is not routed: the call fails with its own
# errno and the caller goes on as directly. Python and dash look a command up by calling execve
# on each PATH directory in turn: the shim directory without a z3 link (ENOENT), a directory
# named yosys (EACCES), a file named z3 nobody may execute (EACCES) come first; a script's
# `except FileNotFoundError` runs its fallback; posix_spawn of a missing file says ENOENT; a FIFO
# (any name) is refused (EACCES) without blocking the exec.
test_a_tool_name_the_kernel_would_not_start_is_not_routed_and_the_caller_goes_on() {
  need yosys z3 python3
  mkdir -p "$SB/dirs/yosys" "$SB/noexec"
  printf '#!/bin/sh\necho not me\n' > "$SB/noexec/z3"
  chmod 0644 "$SB/noexec/z3"
  mkfifo "$SB/fifo-prog"
  chmod 0755 "$SB/fifo-prog"
  lookup_flow > flow.py
  export PATH=$SB/shims:$SB/dirs:$SB/noexec:/usr/bin:/bin
  local direct st_direct via st_via
  st_direct=0; direct=$(EDASHIM=off timeout 60 python3 flow.py 2>&1) || st_direct=$?
  expect_contains "$direct" "z3 by name (0, ['Z3 version" "premise: z3 found past the shims"
  expect_contains "$direct" "fallback ('fallback', (0, ['Yosys" "premise: the fallback ran"
  expect_contains "$direct" "spawn missing FileNotFoundError 2" "premise: ENOENT"
  expect_contains "$direct" "fifo PermissionError 13" "premise: EACCES"
  st_via=0; via=$(timeout 60 "$BIN" run -- python3 flow.py 2>&1) || st_via=$?
  expect_eq "$via" "$direct" "Python: the same answers as directly"
  expect_eq "$st_via" "$st_direct" "Python: same status"
  # The calls that did start a tool were routed: z3's and yosys' lines (the fallback's yosys too).
  expect_eq "$(log_rows 'j["tool"], j["path"]' | grep -v '^python' | sort | tr '\n' '|')" \
    "yosys /usr/bin/yosys|yosys /usr/bin/yosys|z3 /usr/bin/z3|" "the tools that started, each routed"
  # dash looks the command up itself, one execve per directory.
  rm -f "$LOG"
  st_direct=0; direct=$(EDASHIM=off sh -c 'z3 --version; yosys -V; echo "st=$?"' 2>&1) || st_direct=$?
  st_via=0; via=$("$BIN" run -- sh -c 'z3 --version; yosys -V; echo "st=$?"' 2>&1) || st_via=$?
  expect_eq "$via" "$direct" "dash: the same output"
  expect_eq "$st_via" "$st_direct" "dash: same status"
  expect_eq "$(log_rows 'j["tool"]' | sort | tr '\n' ' ')" "sh yosys z3 " "dash: z3 and yosys routed"
}

# ENOEXEC: a file named like a tool, without #! and not ELF, started by its absolute path fails
# as directly (errno 8) from execve, subprocess and posix_spawn; execvp's own fallback (env's)
# runs it under /bin/sh as directly, and nothing is routed.
test_a_tool_named_file_the_kernel_refuses_fails_with_enoexec_as_directly() {
  need python3
  mkdir -p "$SB/opt/bin"
  printf 'echo "run by sh: $0 $*"\n' > "$SB/opt/bin/yosys"
  chmod 0755 "$SB/opt/bin/yosys"
  local y=$SB/opt/bin/yosys
  cat > flow.py <<PY
import os, subprocess, sys
def attempt(label, f):
    try:
        print(label, f())
    except OSError as e:
        print(label, type(e).__name__, e.errno)
attempt("subprocess", lambda: subprocess.run(["$y", "a"]).returncode)
attempt("posix_spawn", lambda: os.waitpid(os.posix_spawn("$y", ["yosys", "a"], os.environ), 0)[1])
attempt("execv", lambda: subprocess.run([sys.executable, "-c", "import os\ntry:\n os.execv('$y', ['yosys'])\nexcept OSError as e:\n print('errno', e.errno)"], capture_output=True, text=True).stdout.strip())
sys.stdout.flush()
attempt("env", lambda: subprocess.run(["env", "PATH=$SB/opt/bin:/usr/bin:/bin", "yosys", "b"]).returncode)
PY
  local direct st_direct via st_via
  st_direct=0; direct=$(EDASHIM=off python3 flow.py 2>&1) || st_direct=$?
  expect_contains "$direct" "subprocess OSError 8" "premise: ENOEXEC directly"
  expect_contains "$direct" "run by sh: $y b" "premise: execvp runs it under sh"
  st_via=0; via=$("$BIN" run -- python3 flow.py 2>&1) || st_via=$?
  expect_eq "$via" "$direct" "the same errors and output as directly"
  expect_eq "$st_via" "$st_direct" "same status"
  expect_eq "$(log_rows 'j["tool"]' | sort -u)" "python3" "nothing routed"
}

# A `#!` script whose interpreter is a tool (`#!/usr/bin/yosys -qs`) is routed: yosys' profile,
# its line, argv as the kernel builds it, the same netlist as directly; twice from one make (the
# hook never remembers a script as needing nothing). A `#!` naming edashim's own link is left to
# the kernel: inside a run it does what it does outside one.
test_a_script_whose_interpreter_is_a_tool_is_routed_as_the_kernel_starts_it() {
  need yosys make
  printf 'module t(input [3:0] a, b, output [3:0] y); assign y = a * b; endmodule\n' > t.v
  printf '#!/usr/bin/yosys -qs\nread_verilog t.v\nsynth -top t\nwrite_json out.json\n' > synth.ys
  chmod +x synth.ys
  printf 'all:\n\t./synth.ys\n\t./synth.ys\n' > Makefile
  EDASHIM=off make -s > direct.out 2>&1 || fail "direct: $(cat direct.out)"
  mv out.json direct.json
  "$BIN" run -- make -s > hook.out 2>&1 || fail "through edashim run: $(cat hook.out)"
  expect_eq "$(cat hook.out)" "$(cat direct.out)" "same output"
  cmp direct.json out.json || fail "netlist differs"
  expect_eq "$(log_rows 'j["tool"], j["argv"], j["path"], j["allocator"]["requested"], j["allocator_verified"]' | grep '^yosys ' | sort | uniq -c | awk '{$1=$1};1')" \
    "2 yosys ['/usr/bin/yosys', '-qs', './synth.ys'] /usr/bin/yosys jemalloc True" "both runs of the script: yosys routed"
  shim yosys
  printf '#!%s -qs\nread_verilog t.v\nwrite_json link.json\n' "$SB/shims/yosys" > link.ys
  chmod +x link.ys
  local outside st_outside inside st_inside
  st_outside=0; outside=$(./link.ys 2>&1) || st_outside=$?
  st_inside=0; inside=$("$BIN" run -- sh -c ./link.ys 2>&1) || st_inside=$?
  expect_eq "$inside $st_inside" "$outside $st_outside" "a #! naming the link: as outside a run"
}

# A musl program that says its first argument, its argc and its LD_PRELOAD, and exits 3.
musl_hello() {
  printf '#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char** v) { const char* p = getenv("LD_PRELOAD"); printf("musl %%s %%d [%%s]\\n", c > 1 ? v[1] : "-", c, p ? p : ""); exit(3); }\n' > m.c
  musl-gcc -o "$1" m.c || fail "musl-gcc failed"
}

# The kernel starts a script's interpreter where no hook sees it: a musl interpreter got
# edashim's libraries and stopped before main. The hook looks at the interpreter, every time: one
# replaced in place between two recipes (a copy of echo, then the musl program) is looked at again.
test_a_script_whose_interpreter_is_a_musl_program_starts_as_directly() {
  need musl-gcc make
  [ -x /lib/ld-musl-x86_64.so.1 ] || skip "no /lib/ld-musl-x86_64.so.1 (musl)"
  musl_hello "$SB/real/hello-musl"
  printf '#!%s/interp\n' "$PWD" > ms.sh
  chmod +x ms.sh
  printf 'all:\n\t./ms.sh one\n\tcp %s interp\n\t./ms.sh two\n' "$SB/real/hello-musl" > Makefile
  local direct st_direct via st_via
  cp /bin/echo interp
  st_direct=0; direct=$(EDASHIM=off make -s 2>&1) || st_direct=$?
  expect_contains "$direct" "musl ./ms.sh 3 []" "premise: the musl interpreter, directly"
  cp /bin/echo interp
  st_via=0; via=$("$BIN" run -- make -s 2>&1) || st_via=$?
  expect_eq "$via" "$direct" "the same output"
  expect_eq "$st_via" "$st_direct" "the same status"
  expect_eq "$(last_log "$LOG" 'j["not_applied"]')" \
    "['allocator not applied to ./ms.sh: loader /lib/ld-musl-x86_64.so.1, needs glibc, has musl']" "the reason"
}

# A musl program started by fexecve (Python's os.execve on a descriptor) or execveat: the hook
# reads it through the descriptor and takes edashim's libraries out, as for execve.
test_fexecve_and_execveat_of_a_musl_program_start_it_as_directly() {
  need musl-gcc python3 gcc
  [ -x /lib/ld-musl-x86_64.so.1 ] || skip "no /lib/ld-musl-x86_64.so.1 (musl)"
  musl_hello "$SB/real/hello-musl"
  cat > at.c <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
extern char** environ;
int main(int c, char** v) {  /* at PATH: execveat(AT_FDCWD, PATH); at-fd PATH: execveat(fd, "") */
  char* args[] = {v[2], v[1], NULL};
  if (c == 3 && v[1][2] == 0) execveat(AT_FDCWD, v[2], args, environ, 0);
  if (c == 3 && v[1][2] == '-') execveat(open(v[2], O_RDONLY | O_CLOEXEC), "", args, environ, AT_EMPTY_PATH);
  perror("execveat");
  exit(127);
}
C
  gcc -o "$SB/real/at" at.c || fail "gcc failed"
  local m=$SB/real/hello-musl how direct st_direct via st_via n=0
  for how in fexecve at at-fd; do
    local cmd=(python3 -c "import os; fd = os.open('$m', os.O_RDONLY); os.execve(fd, ['m', 'fexecve'], os.environ)")
    [ "$how" = fexecve ] || cmd=("$SB/real/at" "$how" "$m")
    st_direct=0; direct=$(EDASHIM=off "${cmd[@]}" 2>&1) || st_direct=$?
    expect_eq "$direct $st_direct" "musl $how 2 [] 3" "$how: premise, directly"
    st_via=0; via=$("$BIN" run -- "${cmd[@]}" 2>&1) || st_via=$?
    expect_eq "$via $st_via" "$direct $st_direct" "$how: through edashim run"
    sweep_lines $((n += 1)) "$how: the run's line (the next sweep's: the musl program cannot tell its end)"
    expect_eq "$(last_log "$LOG" 'j["not_applied"]')" \
      "['allocator not applied to $m: loader /lib/ld-musl-x86_64.so.1, needs glibc, has musl']" "$how: the reason"
  done
}

# A static parent (built by the test: it execs argv[1..]) loads nothing, so what it starts is not
# seen by the hook: edashim's libraries leave its LD_PRELOAD, and a musl program below it starts
# as directly. At a run's top (pre-flight), from a flow's shell (the hook), and inside a tool's
# run through its link.
test_a_musl_program_below_a_static_parent_starts_as_directly() {
  need musl-gcc gcc yosys
  [ -x /lib/ld-musl-x86_64.so.1 ] || skip "no /lib/ld-musl-x86_64.so.1 (musl)"
  musl_hello mprog
  printf '#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\nint main(int c, char** v) { (void)c; execv(v[1], v + 1); perror("execv"); exit(127); }\n' > sparent.c
  gcc -static -o sparent sparent.c 2>/dev/null || skip "no static libc (libc6-dev)"
  local direct st_direct via st_via
  st_direct=0; direct=$(EDASHIM=off ./sparent ./mprog a 2>&1) || st_direct=$?
  expect_eq "$direct $st_direct" "musl a 2 [] 3" "premise: directly"
  st_via=0; via=$("$BIN" run -- ./sparent ./mprog a 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "the static parent as a run's top"
  wait_lines 1 "the static top's line (no probe: written as it starts)"
  expect_contains "$(last_log "$LOG" 'j["verification"]')" "probe not preloaded, nor the exec hook: ./sparent is statically linked" "the top's line says why"
  st_via=0; via=$("$BIN" run -- sh -c './sparent ./mprog a' 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "the static parent started by a flow's shell"
  local why="allocator not applied to what ./sparent starts: it is statically linked"
  expect_contains "$(last_log "$LOG" 'j["not_applied"]')" "$why" "the flow's line says why"
  shim yosys
  st_direct=0; direct=$(EDASHIM=off yosys -q -p '!./sparent ./mprog a' 2>&1) || st_direct=$?
  expect_contains "$direct" "musl a 2 []" "premise: yosys' shell runs it directly"
  st_via=0; via=$(yosys -q -p '!./sparent ./mprog a' 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "inside yosys' run through its link"
  expect_eq "$(last_log "$LOG" 'j["tool"], j["allocator_verified"]')" "yosys True" "yosys' own run as before"
  expect_contains "$(last_log "$LOG" 'j["not_applied"]')" "$why" "yosys' line says why"
}

# ldd (ld.so under LD_TRACE_LOADED_OBJECTS, or ld.so --list) lists what it lists directly: none
# of edashim's libraries, neither in a flow nor inside yosys' run, and the user's own preload as
# directly.
test_ldd_lists_what_it_lists_directly() {
  need yosys gcc
  printf 'void user_preload(void) {}\n' > user.c
  gcc -shared -fPIC -o user.so user.c || fail "gcc failed"
  shim yosys
  # The addresses change from run to run.
  objects() { sed -E 's/ \(0x[0-9a-f]+\)$//'; }
  local direct via mine="LD_PRELOAD=$PWD/user.so"
  direct=$(EDASHIM=off ldd /bin/true | objects)
  expect_contains "$direct" "libc.so.6" "premise"
  expect_eq "$("$BIN" run -- ldd /bin/true | objects)" "$direct" "ldd in a flow"
  expect_eq "$("$BIN" run -- sh -c '/lib64/ld-linux-x86-64.so.2 --list /bin/true' | objects)" "$direct" "ld.so --list in a flow"
  expect_eq "$(yosys -q -p '!ldd /bin/true' | objects)" "$direct" "ldd inside yosys' run"
  direct=$(env "$mine" ldd /bin/true | objects)
  expect_contains "$direct" "$PWD/user.so" "premise: the user's preload listed"
  expect_eq "$(env "$mine" "$BIN" run -- ldd /bin/true | objects)" "$direct" "ldd in a flow, the user's preload"
  expect_eq "$(env "$mine" yosys -q -p '!ldd /bin/true' | objects)" "$direct" "ldd inside yosys' run, the user's preload"
}

# The user's own LD_PRELOAD stays where the hook takes edashim's libraries out (a foreign loader):
# the program sees the value it sees directly.
test_a_foreign_loader_keeps_the_users_own_preload() {
  need gcc
  make_foreign
  printf 'void user_preload(void) {}\n' > user.c
  gcc -shared -fPIC -o user.so user.c || fail "gcc failed"
  local direct st_direct via st_via
  st_direct=0; direct=$(LD_PRELOAD=$PWD/user.so EDASHIM=off sh -c "$SB/real/foreign" 2>&1) || st_direct=$?
  expect_eq "$direct $st_direct" "foreign loader, LD_PRELOAD=[$PWD/user.so] 5" "premise: directly"
  st_via=0; via=$(LD_PRELOAD=$PWD/user.so "$BIN" run -- sh -c "$SB/real/foreign" 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "through edashim run: the user's preload, edashim's out"
  expect_contains "$(last_log "$LOG" 'j["not_applied"]')" "allocator not applied to $SB/real/foreign" "the hook did take edashim's out"
}

# The same for a musl program: from a flow's shell, and inside yosys' run through its link.
test_a_musl_program_keeps_the_users_own_preload() {
  need musl-gcc gcc yosys
  [ -x /lib/ld-musl-x86_64.so.1 ] || skip "no /lib/ld-musl-x86_64.so.1 (musl)"
  musl_hello mprog
  printf 'void user_preload(void) {}\n' > user.c
  gcc -shared -fPIC -o user.so user.c || fail "gcc failed"
  local mine="LD_PRELOAD=$PWD/user.so" why="allocator not applied to ./mprog: loader /lib/ld-musl-x86_64.so.1"
  local direct st_direct via st_via
  st_direct=0; direct=$(env "$mine" EDASHIM=off sh -c './mprog a' 2>&1) || st_direct=$?
  expect_eq "$direct $st_direct" "musl a 2 [$PWD/user.so] 3" "premise: directly"
  st_via=0; via=$(env "$mine" "$BIN" run -- sh -c './mprog a' 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "from a flow's shell: the user's preload, edashim's out"
  expect_contains "$(last_log "$LOG" 'j["not_applied"]')" "$why" "the hook did take edashim's out"
  shim yosys
  st_direct=0; direct=$(env "$mine" EDASHIM=off yosys -q -p '!./mprog a' 2>&1) || st_direct=$?
  expect_contains "$direct" "musl a 2 [$PWD/user.so]" "premise: yosys' shell runs it directly"
  st_via=0; via=$(env "$mine" yosys -q -p '!./mprog a' 2>&1) || st_via=$?
  expect_eq "$via $st_via" "$direct $st_direct" "inside yosys' run through its link"
  expect_contains "$(last_log "$LOG" 'j["not_applied"]')" "$why" "yosys' line says why"
}

# A root run whose flow drops to another user (runuser, su, setpriv: CI entrypoints do), with
# edashim installed where only root can read (root's 0700 home): the new identity cannot open
# edashim's libraries, so they must leave its LD_PRELOAD; else ld.so prints an ERROR line in
# every process below. The output must be the direct run's, stderr included.
test_a_privilege_drop_below_a_root_run_gets_no_preload_it_cannot_open() {
  [ "$(id -u)" = 0 ] || skip "needs root to drop privileges"
  need yosys setpriv
  local priv=$SB/priv f
  mkdir -m 0700 "$priv"
  for f in edashim edashim-cli edashim-build-tree libedashim_probe.so; do
    [ -e "$(dirname "$BIN")/$f" ] && cp -p "$(dirname "$BIN")/$f" "$priv/$f"
  done
  cd /
  # The run does preload edashim's library (else this test would pass without the hook).
  expect_contains "$("$priv/edashim" run -- sh -c 'echo "$LD_PRELOAD"')" "$priv/libedashim_probe.so" "preloaded for root"
  local drop=(setpriv --reuid=65534 --regid=65534 --clear-groups) direct via
  direct=$("${drop[@]}" yosys -q -p 'log hello' 2>&1) || fail "directly: $direct"
  via=$("$priv/edashim" run -- "${drop[@]}" yosys -q -p 'log hello' 2>&1) || fail "through edashim run: $via"
  expect_eq "$via" "$direct" "setpriv to nobody: yosys' output as directly, no ld.so line"
  direct=$(/usr/sbin/runuser -u nobody -- sh -c 'echo "[$LD_PRELOAD]"; yosys -q -p "log hello"' 2>&1) || fail "directly: $direct"
  via=$("$priv/edashim" run -- /usr/sbin/runuser -u nobody -- sh -c 'echo "[$LD_PRELOAD]"; yosys -q -p "log hello"' 2>&1) ||
    fail "through edashim run: $via"
  expect_eq "$via" "$direct" "runuser to nobody: the same, and nothing of edashim's left in LD_PRELOAD"
  direct=$(su -s /bin/sh nobody -c 'echo "[$LD_PRELOAD]"; yosys -q -p "log hello"' 2>&1) || fail "directly: $direct"
  via=$("$priv/edashim" run -- su -s /bin/sh nobody -c 'echo "[$LD_PRELOAD]"; yosys -q -p "log hello"' 2>&1) ||
    fail "through edashim run: $via"
  expect_eq "$via" "$direct" "su to nobody: the same"
}

run_suite "$@"
