#!/usr/bin/env bash
# The launcher matrix: the ways a flow starts a program (Python's subprocess, posix_spawn, execvp
# and fexecve; dash and bash; Perl; make; env; xargs; #! scripts; a static parent; ldd), each cell
# run three ways and compared:
#   D  directly: PATH without the shim directory, as without edashim (EDASHIM=off would leave
#      the links on PATH, and they are part of what is tested: a #! naming one fails with it too);
#   R  `edashim run -- LAUNCHER ...`: the exec hook in the launcher;
#   T  inside a tool's run: `yosys -q -p '!LAUNCHER ...'` through the yosys link, so the launcher
#      has the hook, yosys' allocator and yosys' scratch.
# PATH is as install.sh sets it: the shim directory first (with install.sh's links, not z3), then
# a directory without the tools, then the tools' own. Compared: the exit status, stderr (errno and
# exception texts), stdout, and the environment the started program prints. Where edashim routes
# the program (a tool it has a profile for), edashim's markers and LD_PRELOAD (edashim's probe
# alone) are left out of the comparison, and the run's own log line is required instead.
source "$(dirname "$0")/lib.sh"

need() { for t in "$@"; do command -v "$t" > /dev/null || skip "$t not installed (see install/packages.txt)"; done; }

# The PATH install.sh gives, and the same without the shim directory for the direct runs.
matrix_setup() {
  need yosys python3 gcc
  mkdir -p "$SB/notools" "$SB/cells" "$XDG_CONFIG_HOME/edashim"
  FULL_PATH=$SB/shims:$SB/notools:$SB/real:/usr/local/bin:/usr/bin:/bin
  DIRECT_PATH=${FULL_PATH#"$SB/shims:"}
  export PATH=$FULL_PATH
  # install.sh's links: the tools of its list installed here (z3 is not linked by install.sh).
  shim yosys yosys-abc berkeley-abc nextpnr-ice40 icepack
  CELL_DIRECT=()
  write_compare
}

# A stand-in for a tool edashim ships a profile for: named z3 (profile: allocator "system",
# nothing else set), so the hook routes it by file name as it routes Debian's z3, and it prints
# what no real z3 prints: a line saying it ran, its argv and its environment. Exits 3.
standin() {
  cat > "$SB/showenv.c" <<'C'
#include <stdio.h>
extern char** environ;
int main(int argc, char** argv) {
  printf("stand-in ran\n");
  for (int i = 0; i < argc; ++i) printf("arg %s\n", argv[i]);
  for (char** e = environ; *e; ++e) printf("env %s\n", *e);
  return 3;
}
C
  gcc -O2 -o "$SB/real/z3" "$SB/showenv.c" || fail "gcc failed"
  TOOL=$SB/real/z3
}

# sh_quote ARGS...: the arguments as one POSIX sh command line (T runs it under dash).
sh_quote() {
  local a out=""
  for a in "$@"; do out+="'${a//\'/\'\\\'\'}' "; done
  printf '%s' "${out% }"
}

# A difference found: the test fails at its end, after the other cells have been compared.
report() { note_fail "$@" || true; }

log_count() { if [ -e "$LOG" ]; then wc -l < "$LOG"; else echo 0; fi; }
# log_since N FILE: the log lines after the first N, into FILE.
log_since() { if [ -e "$LOG" ]; then tail -n +$(($1 + 1)) "$LOG" > "$2"; else : > "$2"; fi; }

# cell NAME KIND CMD...: runs CMD three ways (D, R, T) in the work directory with stdin from
# /dev/null, each way's stdout, stderr, status and new log lines in $SB/cells/NAME, and compares.
# KIND says what CMD starts:
#   routed:TOOL@PATH=N  a program edashim routes: the environment it prints is compared but for
#       edashim's markers and LD_PRELOAD (which must be edashim's probe alone: nothing inherited
#       from yosys' run); R and T must each log exactly N runs of TOOL at PATH (* for any)
#       below the top;
#   child  a program edashim does not route, which inherits the top's run: what that run set
#       (the variables of the top's log line's env_set, with those values; LD_PRELOAD holding
#       only what the top's did) is left out; no run below the top is logged;
#   none   nothing that edashim runs: no run below the top is logged, no environment filtered;
#   any    as routed, without a check of the log.
# CELL_DIRECT (an array), when set: D runs that command instead (what the cell stands for
# without edashim), with PATH without the shim directory as always.
# Every difference is a failed check naming the cell and the way; the test goes on to the next
# cell (report) and fails at its end.
cell() {
  local name=$1 kind=$2
  shift 2
  local dir=$SB/cells/$name st before
  mkdir -p "$dir"
  before=$(log_count)
  st=0
  local direct=("$@")
  [[ ${#CELL_DIRECT[@]} -eq 0 ]] || direct=("${CELL_DIRECT[@]}")
  # Not in a subshell: bash lowers SHLVL for a subshell's last command, which it execs.
  PATH=$DIRECT_PATH "${direct[@]}" < /dev/null > "$dir/D.out" 2> "$dir/D.err" || st=$?
  echo "$st" > "$dir/D.st"
  [[ "$(log_count)" == "$before" ]] || report "cell $name, D: the direct run wrote a log line"
  before=$(log_count)
  st=0
  "$BIN" run -- "$@" < /dev/null > "$dir/R.out" 2> "$dir/R.err" || st=$?
  echo "$st" > "$dir/R.st"
  log_since "$before" "$dir/R.log"
  before=$(log_count)
  printf '%s < /dev/null > %s 2> %s; echo $? > %s\n' "$(sh_quote "$@")" "$(sh_quote "$dir/T.out")" \
    "$(sh_quote "$dir/T.err")" "$(sh_quote "$dir/T.st")" > "$dir/cmd.sh"
  st=0
  yosys -q -p "!. $dir/cmd.sh" > "$dir/T.yosys" 2>&1 || st=$?
  log_since "$before" "$dir/T.log"
  [[ $st -eq 0 && ! -s "$dir/T.yosys" ]] || report "cell $name, T: yosys itself: status $st, [$(tr '\n' '|' < "$dir/T.yosys")]"
  compare_cell "$name" "$kind"
}

compare_cell() {
  local problems
  problems=$(python3 "$SB/compare.py" "$SB/cells/$1" "$2" "$DIRECT_PATH" "$FULL_PATH") ||
    report "cell $1: the comparison itself failed"
  local p
  while IFS= read -r p; do
    [[ -z "$p" ]] || report "cell $1, $p"
  done <<< "$problems"
}

# The comparison of one cell's three ways, one line per difference (none: the cell passed).
write_compare() {
  cat > "$SB/compare.py" <<'PY'
import difflib, json, os, re, sys

cell, kind, direct_path, full_path = sys.argv[1:5]
MARKER = re.compile(r"^(__EDASHIM_[A-Z_]*|EDASHIM_FLOW)$")

def read(way, what):
    with open(os.path.join(cell, f"{way}.{what}"), errors="replace") as f:
        return f.read()

def log_rows(way):
    return [json.loads(line) for line in read(way, "log").splitlines()]

def top_env_set(way):
    # Inside a tool's run the top is yosys'. A run in place of a program with nothing of edashim's
    # loaded (a static one) has its line written a moment after the caller's wait: the R way's
    # line may land among T's.
    tops = [j for j in log_rows(way) if not j.get("parent_run") and (way != "T" or j.get("tool") == "yosys")] \
        if way != "D" else []
    return tops[0].get("env_set") or {} if tops else {}

def preload_entries(value):
    return [p for p in re.split("[: ]", value or "") if p]

# A line of the environment a program printed, or None where edashim may legitimately differ.
def env_line(way, name, value, top_set, problems):
    if name == "_":  # bash's name for the command it started last: the launcher, or edashim
        return None
    if way == "D" and name == "PATH" and value == direct_path:
        value = full_path
    if way == "D" or kind == "none":
        return f"env {name}={value}"
    if MARKER.match(name):
        return None
    if name == "LD_PRELOAD":
        if kind == "child":
            allowed = preload_entries(top_set.get("LD_PRELOAD"))
            foreign = [p for p in preload_entries(value) if p not in allowed]
            what = "the top's run's"
        else:
            foreign = [p for p in preload_entries(value) if not os.path.basename(p).startswith("libedashim_probe")]
            what = "edashim's probe"
        if foreign:
            problems.append(f"{way}: the program's LD_PRELOAD has {foreign}, more than {what}")
        return None
    if kind == "child" and top_set.get(name) == value:
        return None
    return f"env {name}={value}"

def normal_stdout(way, problems):
    top_set = top_env_set(way)
    out = []
    for line in read(way, "out").splitlines():
        # ASLR: the addresses ldd prints differ between any two runs.
        line = re.sub(r"\(0x[0-9a-f]+\)", "(ADDRESS)", line)
        if line.startswith("env ") and "=" in line:
            line = env_line(way, *line[4:].split("=", 1), top_set, problems)
        if line is not None:
            out.append(line)
    return sorted_env_blocks(out)

# The environment as a set: a shell (dash, T's `sh -c`) passes it on in an order of its own.
def sorted_env_blocks(lines):
    out, block = [], []
    for line in lines + [""]:
        if line.startswith("env "):
            block.append(line)
            continue
        out += sorted(block)
        block = []
        out.append(line)
    return out[:-1]

def diff(a, b, way):
    d = list(difflib.unified_diff(a, b, "D", way, n=0, lineterm=""))[2:]
    return " | ".join(d[:8]) + (" | ..." if len(d) > 8 else "")

def nested(way):
    return [(j.get("tool"), j.get("path")) for j in log_rows(way) if j.get("parent_run")]

problems = []
d_out, d_err, d_st = normal_stdout("D", problems), read("D", "err"), read("D", "st").strip()
for way in ("R", "T"):
    st = read(way, "st").strip()
    if st != d_st:
        problems.append(f"{way}: exit status {st}, directly {d_st}")
    err = read(way, "err")
    if err != d_err:
        problems.append(f"{way}: stderr differs: {diff(d_err.splitlines(), err.splitlines(), way)}")
    out = normal_stdout(way, problems)
    if out != d_out:
        problems.append(f"{way}: stdout differs: {diff(d_out, out, way)}")
    runs = nested(way)
    if kind.startswith("routed:"):
        spec, count = kind[len("routed:"):].rsplit("=", 1)
        tool, path = spec.split("@", 1)
        got = sum(1 for t, p in runs if t == tool and path in ("*", p))
        if got != int(count):
            problems.append(f"{way}: {got} logged runs of {tool} at {path}, expected {count} (runs below the top: {runs})")
    elif kind in ("none", "child") and runs:
        problems.append(f"{way}: runs logged below the top where edashim should run nothing: {runs}")
for p in problems:
    print(p)
PY
}

# The Python launchers: subprocess by name (the shim directory, then a directory without the
# tool, before its own; with and without a link for it), by absolute path, with env=;
# os.posix_spawn (a missing file raises ENOENT), posix_spawnp, os.execvp, and os.execve on a
# descriptor (fexecve, which edashim does not route: the program inherits the launcher's run).
test_python_launchers() {
  matrix_setup
  standin
  cat > launch.py <<'PY'
import os, subprocess, sys
how, target, args = sys.argv[1], sys.argv[2], sys.argv[3:]
argv = [target] + args
if how == "run":
    print("status", subprocess.run(argv).returncode)
elif how == "env-copy":
    print("status", subprocess.run(argv, env=dict(os.environ, CELL="env-copy")).returncode)
elif how == "env-minimal":
    print("status", subprocess.run(argv, env={"PATH": os.environ["PATH"], "CELL": "env-minimal"}).returncode)
elif how in ("posix_spawn", "posix_spawnp"):
    pid = getattr(os, how)(target, argv, os.environ)
    print("status", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
elif how == "execvp":
    os.execvp(target, argv)
elif how == "fexecve":
    os.execve(os.open(target, os.O_RDONLY), argv, os.environ)
PY
  cell py_subprocess_by_name_no_link "routed:z3@$TOOL=1" python3 launch.py run z3 one two
  shim z3
  cell py_subprocess_by_name_via_link "routed:z3@$TOOL=1" python3 launch.py run z3 one two
  rm "$SB/shims/z3"
  cell py_subprocess_by_absolute_path "routed:z3@$TOOL=1" python3 launch.py run "$TOOL" one
  cell py_subprocess_env_copy "routed:z3@$TOOL=1" python3 launch.py env-copy "$TOOL" one
  cell py_subprocess_env_minimal any python3 launch.py env-minimal "$TOOL" one
  cell py_posix_spawn "routed:z3@$TOOL=1" python3 launch.py posix_spawn "$TOOL" one
  cell py_posix_spawn_missing_file none python3 launch.py posix_spawn "$SB/notools/z3" one
  expect_contains "$(cat "$SB/cells/py_posix_spawn_missing_file/D.err")" \
    "FileNotFoundError: [Errno 2] No such file or directory: '$SB/notools/z3'" "premise: posix_spawn of a missing file raises ENOENT directly"
  cell py_posix_spawnp_by_name "routed:z3@$TOOL=1" python3 launch.py posix_spawnp z3 one
  cell py_execvp_by_name "routed:z3@$TOOL=1" python3 launch.py execvp z3 one
  cell py_fexecve child python3 launch.py fexecve "$TOOL" one
}

# A launcher that starts a detached child (its own session, close_fds as Python's default) and
# ends; the child uses its TMPDIR after the launcher's run is over, as a daemon or a job left
# behind does. Directly it can (TMPDIR unset: /tmp); it must under edashim too, where the user's
# `scratch = true` (R) or yosys' profile (T) gave the launcher a private TMPDIR.
test_python_detached_child_keeps_its_tmpdir() {
  matrix_setup
  printf 'scratch = true\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  cat > detach.py <<'PY'
import subprocess, sys
subprocess.Popen([sys.executable, "child.py"] + sys.argv[1:], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("launched")
PY
  cat > child.py <<'PY'
import os, sys, tempfile, time
go, result = sys.argv[1:3]
while not os.path.exists(go):  # the test says when the launcher's run has ended
    time.sleep(0.02)
try:
    fd, path = tempfile.mkstemp(dir=os.environ.get("TMPDIR", "/tmp"))
    os.write(fd, b"x")
    os.close(fd)
    os.unlink(path)
    r = "wrote a file in its TMPDIR"
except OSError as e:
    r = f"{type(e).__name__}: [Errno {e.errno}] {e.strerror}"
with open(result + ".part", "w") as f:
    f.write(r + "\n")
os.rename(result + ".part", result)
PY
  local way st out direct_result="" dir=$SB/cells/detached
  mkdir -p "$dir"
  for way in D R T; do
    st=0
    case $way in
      D) PATH=$DIRECT_PATH python3 detach.py "$dir/$way.go" "$dir/$way.result" > "$dir/$way.out" 2>&1 || st=$? ;;
      R) "$BIN" run -- python3 detach.py "$dir/$way.go" "$dir/$way.result" > "$dir/$way.out" 2>&1 || st=$? ;;
      T) yosys -q -p "!python3 detach.py $dir/$way.go $dir/$way.result" > "$dir/$way.out" 2>&1 || st=$? ;;
    esac
    touch "$dir/$way.go"
    wait_for "$dir/$way.result" .
    out="status $st, $(cat "$dir/$way.out"), the child: $(cat "$dir/$way.result")"
    if [[ $way == D ]]; then
      expect_eq "$out" "status 0, launched, the child: wrote a file in its TMPDIR" "premise: the direct run"
      direct_result=$out
    else
      [[ "$out" == "$direct_result" ]] || report "cell py_detached_child_close_fds_tmpdir, $way: [$out], directly [$direct_result]"
    fi
  done
}

# dash and bash: `exec tool` and `command tool`, the tool found on PATH past the shim directory
# (no link for z3 there) and a directory without it.
test_shell_launchers() {
  need dash bash
  matrix_setup
  standin
  local sh
  for sh in dash bash; do
    cell "${sh}_exec_by_name" "routed:z3@$TOOL=1" "$sh" -c 'exec z3 one two'
    cell "${sh}_command_by_name" "routed:z3@$TOOL=1" "$sh" -c 'command z3 one; echo "status $?"'
    cell "${sh}_exec_by_absolute_path" "routed:z3@$TOOL=1" "$sh" -c "exec $TOOL one"
  done
}

# Perl's system and exec (execvp), env and xargs (execvp), each by name past the shim directory.
test_perl_env_and_xargs_launchers() {
  need perl env xargs
  matrix_setup
  standin
  cell perl_system_by_name "routed:z3@$TOOL=1" perl -e 'system("z3", "one"); print "status ", $? >> 8, "\n"'
  cell perl_exec_by_name "routed:z3@$TOOL=1" perl -e 'exec("z3", "one") or print "exec failed: $!\n"'
  cell perl_exec_missing_file none perl -e 'exec($ARGV[0], "one") or print "exec failed: $!\n"; exit 9' "$SB/notools/z3"
  cell env_by_name "routed:z3@$TOOL=1" env CELL=env z3 one
  cell env_missing_file none env "$SB/notools/z3" one
  printf 'one\ntwo\n' > args.txt
  cell xargs_by_name "routed:z3@$TOOL=1" xargs -a args.txt z3
}

# make recipes that set variables for one command (OMP_NUM_THREADS=8 TMPDIR=/var/tmp tool) while
# the user's config asks for [env] OMP_NUM_THREADS = "2" and scratch = true: the recipe's values
# reach the tool, as directly. The tool by absolute path (the hook routes it) and by name through
# a link.
test_make_recipes_with_explicit_variables() {
  need make
  matrix_setup
  standin
  shim z3
  printf 'scratch = true\n[env]\nOMP_NUM_THREADS = "2"\n' > "$XDG_CONFIG_HOME/edashim/config.toml"
  printf 'all:\n\t-OMP_NUM_THREADS=8 TMPDIR=/var/tmp %s by-path\n\t-OMP_NUM_THREADS=8 TMPDIR=/var/tmp z3 by-link\n' "$TOOL" > Makefile
  cell make_explicit_variables "routed:z3@$TOOL=2" make -s
  expect_contains "$(cat "$SB/cells/make_explicit_variables/D.out")" "env OMP_NUM_THREADS=8" "premise: the recipe's value directly"
}

# #! scripts: one naming a shim link, one naming the real tool, started by Python; the launcher
# prints the netlist the script wrote. yosys must run, and under a run be a run of its own, as
# yosys by path is.
# The direct run of the link's script is the real tool's: the link stands in for yosys (with
# EDASHIM=off too it takes its name from the script's, which is no tool).
test_shebang_scripts() {
  matrix_setup
  printf 'module t(input a, b, output y); assign y = a & b; endmodule\n' > t.v
  printf '#!%s -qs\nread_verilog t.v\nproc\nwrite_verilog -noattr out.v\n' "$SB/shims/yosys" > via-link.ys
  printf '#!/usr/bin/yosys -qs\nread_verilog t.v\nproc\nwrite_verilog -noattr out.v\n' > real-tool.ys
  chmod +x via-link.ys real-tool.ys
  cat > run.py <<'PY'
import os, subprocess, sys
if os.path.exists("out.v"):
    os.unlink("out.v")
print("status", subprocess.run(sys.argv[1:]).returncode)
print(open("out.v").read() if os.path.exists("out.v") else "no out.v")
PY
  CELL_DIRECT=(python3 run.py ./real-tool.ys)
  cell shebang_naming_a_link "routed:yosys@/usr/bin/yosys=1" python3 run.py ./via-link.ys
  CELL_DIRECT=()
  # (Which path its line names, the script's or its interpreter's, is not the point here.)
  cell shebang_naming_the_real_tool "routed:yosys@*=1" python3 run.py ./real-tool.ys
  expect_contains "$(cat "$SB/cells/shebang_naming_the_real_tool/D.out")" "module t(" "premise: the real tool's script writes the netlist"
}

# What cannot be run, named like a tool: a missing file, a directory, a file without the execute
# bit, and a text file without #! (ENOEXEC: an error for execve, run under /bin/sh by execvp).
# Python (execve by path) and env (execvp) report each as directly.
test_missing_directory_non_executable_and_text_files() {
  need env
  matrix_setup
  mkdir -p "$SB/dir/yosys" "$SB/noexec" "$SB/text"
  cp /usr/bin/true "$SB/noexec/yosys"
  chmod 0644 "$SB/noexec/yosys"
  printf 'echo "text tool: $0 $*"\n' > "$SB/text/z3"
  chmod 0755 "$SB/text/z3"
  printf 'import subprocess, sys\nprint("status", subprocess.run(sys.argv[1:]).returncode)\n' > run.py
  local what file
  for what in missing:$SB/notools/yosys directory:$SB/dir/yosys non_executable:$SB/noexec/yosys; do
    file=${what#*:}
    cell "py_${what%%:*}" none python3 run.py "$file" one
    cell "env_${what%%:*}" none env "$file" one
  done
  expect_contains "$(cat "$SB/cells/py_directory/D.err")" "PermissionError: [Errno 13]" "premise: a directory is EACCES"
  cell py_text_file_enoexec none python3 run.py "$SB/text/z3" one
  expect_contains "$(cat "$SB/cells/py_text_file_enoexec/D.err")" "OSError: [Errno 8] Exec format error" "premise: ENOEXEC directly"
  cell env_text_file_runs_under_sh any env "$SB/text/z3" one
  expect_eq "$(cat "$SB/cells/env_text_file_runs_under_sh/D.out")" "text tool: $SB/text/z3 one" "premise: execvp runs it under sh"
}

# A musl program started by a statically linked parent (which loads nothing, so no hook is in
# it): it must start as directly.
test_musl_program_under_a_static_parent() {
  need musl-gcc
  matrix_setup
  standin
  musl-gcc -O2 -o "$SB/real/muslprog" "$SB/showenv.c" || fail "musl-gcc failed"
  printf '#include <unistd.h>\nint main(int c, char** v) { (void)c; execv(v[1], v + 1); _exit(127); }\n' > parent.c
  gcc -static -O2 -o "$SB/real/staticparent" parent.c || fail "gcc -static failed"
  cell musl_under_static_parent child "$SB/real/staticparent" "$SB/real/muslprog" one
  expect_eq "$(cat "$SB/cells/musl_under_static_parent/D.st")" 3 "premise: the musl program runs directly"
}

# ldd runs the loader in trace mode: it lists the program's libraries, and any preloaded one.
test_ldd_lists_the_same_libraries() {
  need ldd
  matrix_setup
  cell ldd_bin_true none ldd /bin/true
}

# A launcher that pipes to z3 found on PATH, as yosys-smtbmc does: the real z3 (no link for it,
# as install.sh leaves it), past the shim directory and a directory without it.
test_a_launcher_piping_to_z3_through_path() {
  need z3
  matrix_setup
  cat > smt.py <<'PY'
import subprocess
p = subprocess.Popen(["z3", "-smt2", "-in"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
out, _ = p.communicate("(declare-const x Int)\n(assert (> x 2))\n(assert (< x 4))\n(check-sat)\n(get-value (x))\n")
print(out.strip(), "status", p.returncode)
PY
  cell smtbmc_like_z3_through_path "routed:z3@/usr/bin/z3=1" python3 smt.py
  expect_eq "$(tr '\n' ' ' < "$SB/cells/smtbmc_like_z3_through_path/D.out")" "sat ((x 3)) status 0 " "premise: z3's answer"
}

# example_flow NAME MAKEFILE FILES...: the example run directly (D), through the links with PATH
# as install.sh sets it (L), and under `edashim run -- make` (R): the same status, stdout and
# stderr, and the same FILES (relative to its OUT). Leaves each way's log lines in $SB/flow.WAY.log.
example_flow() {
  local name=$1 makefile=$2 way st before f
  shift 2
  for way in D L R; do
    before=$(log_count)
    st=0
    case $way in
      D) PATH=$DIRECT_PATH make -f "$makefile" OUT="$PWD/build" > "$way.out" 2> "$way.err" || st=$? ;;
      L) make -f "$makefile" OUT="$PWD/build" > "$way.out" 2> "$way.err" || st=$? ;;
      R) "$BIN" run -- make -f "$makefile" OUT="$PWD/build" > "$way.out" 2> "$way.err" || st=$? ;;
    esac
    echo "$st" > "$way.st"
    log_since "$before" "$SB/flow.$way.log"
    mkdir -p build  # (a run that failed before the first recipe made none)
    mv build "build.$way"
    [[ $way == D ]] && continue
    [[ "$st" == "$(cat D.st)" ]] || report "$name, $way: status $st, directly $(cat D.st); stderr: $(tr '\n' '|' < "$way.err")"
    cmp -s D.out "$way.out" || report "$name, $way: stdout differs: $(diff D.out "$way.out" | head -5 | tr '\n' '|')"
    cmp -s D.err "$way.err" || report "$name, $way: stderr differs: $(diff D.err "$way.err" | head -5 | tr '\n' '|')"
    for f in "$@"; do
      cmp -s "build.D/$f" "build.$way/$f" || report "$name, $way: $f differs from the direct run's"
    done
  done
  expect_eq "$(cat D.st)" 0 "premise: $name runs directly"
}

# The tools a way's log lines name, sorted, each as often as it ran ("nested": only the runs below
# a top).
flow_tools() {
  python3 -c "import json,sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(' '.join(sorted(j['tool'] for j in rows if sys.argv[2] == 'all' or j.get('parent_run'))))" "$SB/flow.$1.log" "$2"
}

test_example_ice40_makefile() {
  need make nextpnr-ice40 icepack
  matrix_setup
  example_flow examples/ice40 "$SRC/examples/ice40/Makefile" counter.json counter.asc counter.bin
  # yosys' ABC (berkeley-abc, through yosys-abc) is a run of its own too.
  [[ "$(flow_tools L all)" == "berkeley-abc icepack nextpnr-ice40 yosys" ]] || report "examples/ice40, L: runs logged: [$(flow_tools L all)]"
  [[ "$(flow_tools R nested)" == "berkeley-abc icepack nextpnr-ice40 yosys" ]] || report "examples/ice40, R: runs logged below make: [$(flow_tools R nested)]"
}

# yosys-smtbmc (Python) starts z3 by name: no link for it, past the shim directory and a
# directory without it. The logs' lines but their elapsed times must be the same.
test_example_formal_makefile() {
  need make z3 yosys-smtbmc
  matrix_setup
  local way f
  example_flow examples/formal "$SRC/examples/formal/Makefile" bcd_counter.smt2
  for way in D L R; do
    for f in bmc prove cover; do
      if [ -e "build.$way/$f.log" ]; then
        sed -E 's/^## +[0-9]+:[0-9]{2}:[0-9]{2} +/## /' "build.$way/$f.log" > "build.$way/$f.cmp"
      fi
    done
  done
  for way in L R; do
    for f in bmc prove cover; do
      cmp -s "build.D/$f.cmp" "build.$way/$f.cmp" || report "examples/formal, $way: $f.log differs: $(diff "build.D/$f.cmp" "build.$way/$f.cmp" 2>&1 | head -4 | tr '\n' '|')"
    done
  done
  expect_contains "$(cat build.D/prove.cmp)" "PASSED" "premise: the proof passes directly"
  [[ "$(flow_tools R nested)" == "yosys z3 z3 z3" ]] || report "examples/formal, R: runs logged below make: [$(flow_tools R nested)]"
}

run_suite "$@"
