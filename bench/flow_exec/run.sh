#!/usr/bin/env bash
# Cost of the exec hook (issue 26 item 6), not a test: `make -j2` of a Makefile with 2000
# trivial recipes (each one exec of `true`, started by make with posix_spawn), timed
# interleaved in three arms:
#   plain   make alone
#   floor   make with an empty library preloaded: what preloading any library costs each
#           process (the loader opens, maps and relocates it), the floor under the hook
#   hook    make with libedashim_probe.so preloaded as the hook alone (its records off):
#           every exec passes through the hook's decision, nothing else of edashim
#   run     `edashim run -- make`: the hook and the probe's records, as a flow runs
# Usage: bench/flow_exec/run.sh BUILD_DIR [ROUNDS]   Prints medians, us per exec and %.
set -euo pipefail
build=$(cd "${1:?build directory}" && pwd)
rounds=${2:-15}
edashim=$build/shim/edashim
probe=$build/shim/libedashim_probe.so
work=$(mktemp -d /tmp/edashim-flow-exec-XXXXXX)
trap 'rm -rf "$work"' EXIT
n=2000
{
  printf 'all: $(addprefix t,$(shell seq 1 %d))\n' "$n"
  printf 't%%:\n\t@true $@\n'
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
hook_env = dict(base, LD_PRELOAD=probe, __EDASHIM_OURS=probe, __EDASHIM_EXE=edashim,
                __EDASHIM_TOOLS="berkeley-abc:icepack:nextpnr-ice40:vpr:yosys:yosys-abc")
arms = {
    "plain": ([make, "-s", "-j2"], base),
    "floor": ([make, "-s", "-j2"], dict(base, LD_PRELOAD=empty)),
    "hook": ([make, "-s", "-j2"], hook_env),
    "run": ([edashim, "run", "--", make, "-s", "-j2"], base),
}
times = {k: [] for k in arms}
for _ in range(2):  # warm-up
    for cmd, env in arms.values():
        subprocess.run(cmd, env=env, check=True)
for _ in range(rounds):
    for name, (cmd, env) in arms.items():
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True)
        times[name].append(time.perf_counter() - t)
med = {k: statistics.median(v) for k, v in times.items()}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"CPU: {cpu}, {os.cpu_count()} cores; {n} recipes, make -j2, {rounds} interleaved rounds")
for k in arms:
    extra = med[k] - med["plain"]
    print(f"{k:6s} median {med[k]*1000:8.1f} ms  (min {min(times[k])*1000:.1f})  "
          f"+{extra*1e6/n:6.1f} us per exec  {extra/med['plain']*100:+6.1f} %")
over = (med["hook"] - med["floor"]) * 1e6 / n
print(f"the hook over the floor of any preloaded library: {over:+.1f} us per exec")
PY
