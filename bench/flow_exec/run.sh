#!/usr/bin/env bash
# Cost of the exec hook (issue 26 item 6), not a test: `make -j2` of a Makefile with 2000
# trivial recipes (each one exec of RECIPE, started by make with posix_spawn), timed
# interleaved in five arms. RECIPE `true` (the default) starts no program of its own, so the
# hook leaves itself out of it where nothing records; `sh -c :` is a program that could, so
# it carries the hook: the two bound what a recipe pays.
#   plain   make alone
#   floor   make with an empty library preloaded: what preloading any library costs each
#           process (the loader opens, maps and relocates it), the floor under the hook
#   hook    make with libedashim_probe.so preloaded as the hook alone (its records off):
#           every exec passes through the hook's decision, nothing else of edashim
#   hookenv make with exactly the environment `edashim run -- make` gives make (captured from
#           one run: flow id, notes file, chain, every tool name), started directly: the hook
#           as a flow runs it, without edashim's own process around make
#   run     `edashim run -- make`: the whole flow top, edashim's start and end included
# Usage: bench/flow_exec/run.sh BUILD_DIR [ROUNDS] [RECIPE]   Prints each arm's median wall time
# and, paired with plain make in the same round, what it adds per exec in wall time and in CPU
# time (make's tree, from wait4: steadier than wall time on a shared machine) and as a share.
set -euo pipefail
build=$(cd "${1:?build directory}" && pwd)
rounds=${2:-15}
recipe=${3:-true}
edashim=$build/shim/edashim
probe=$build/shim/libedashim_probe.so
work=$(mktemp -d /tmp/edashim-flow-exec-XXXXXX)
trap 'rm -rf "$work"' EXIT
n=2000
{
  printf 'all: $(addprefix t,$(shell seq 1 %d))\n' "$n"
  printf 't%%:\n\t@%s $@\n' "$recipe"
  printf '.PHONY: all\n'
} > "$work/Makefile"
mkdir -p "$work/home"
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state
export XDG_CACHE_HOME=$work/home/.cache EDASHIM_LOG=$work/runs.jsonl
unset EDASHIM LD_PRELOAD __EDASHIM_CHAIN
printf 'void edashim_flow_exec_empty(void) {}\n' > "$work/empty.c"
cc -O2 -fPIC -shared -o "$work/empty.so" "$work/empty.c"
cd "$work"
make=$(type -P make)
python3 - "$rounds" "$n" "$make" "$edashim" "$probe" "$work/empty.so" <<'PY'
import os, statistics, subprocess, sys, time
rounds, n, make, edashim, probe, empty = int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:]
base = dict(os.environ)
# The hook alone: what `edashim run` gives a process, without the probe's records (no __EDASHIM_PROBE).
# The environment a flow's top gets, from one real run (env -0 through edashim).
out = subprocess.run([edashim, "run", "--", "env", "-0"], env=base, check=True, capture_output=True).stdout
run_env = dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)
hook_env = dict(base, LD_PRELOAD=probe, __EDASHIM_OURS=probe, __EDASHIM_EXE=edashim,
                __EDASHIM_TOOLS="berkeley-abc:icepack:nextpnr-ice40:vpr:yosys:yosys-abc")
arms = {
    "plain": ([make, "-s", "-j2"], base),
    "floor": ([make, "-s", "-j2"], dict(base, LD_PRELOAD=empty)),
    "hook": ([make, "-s", "-j2"], hook_env),
    "hookenv": ([make, "-s", "-j2"], run_env),
    "run": ([edashim, "run", "--", make, "-s", "-j2"], base),
}
import random
random.seed(1)


def timed(cmd, env):
    """Wall time and the tree's CPU time (user + system, from wait4: make and every recipe)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} exited {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime


times = {k: [] for k in arms}
cpus = {k: [] for k in arms}
for _ in range(2):  # warm-up
    for cmd, env in arms.values():
        timed(cmd, env)
for _ in range(rounds):  # every arm once a round, in a shuffled order
    order = list(arms)
    random.shuffle(order)
    for name in order:
        wall, cpu_s = timed(*arms[name])
        times[name].append(wall)
        cpus[name].append(cpu_s)
med = {k: statistics.median(v) for k, v in times.items()}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
recipe = open("Makefile").read().split("@", 1)[1].split(" $@")[0]
print(f"CPU: {cpu}, {os.cpu_count()} cores; {n} recipes `{recipe}`, make -j2, {rounds} rounds, arms shuffled")
print("         wall: median     per exec, paired   share     CPU (user+sys): per exec, paired")
# Paired: each round's arm minus that round's plain make (drift of the machine cancels).
for k in arms:
    dw = statistics.median(a - b for a, b in zip(times[k], times["plain"]))
    dc = statistics.median(a - b for a, b in zip(cpus[k], cpus["plain"]))
    print(f"{k:7s} {med[k]*1000:9.1f} ms  {dw*1e6/n:+8.1f} us  {dw/med['plain']*100:+6.1f} %  "
          f"{dc*1e6/n:+8.1f} us  {dc/statistics.median(cpus['plain'])*100:+6.1f} %")
over = statistics.median(a - b for a, b in zip(times["hook"], times["floor"])) * 1e6 / n
print(f"the hook over the floor of any preloaded library: {over:+.1f} us per exec (wall, paired)")
PY
