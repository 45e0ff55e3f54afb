#!/usr/bin/env bash
# VTR's own flow script through `edashim run --` against the same flow run directly (issue 26
# item 8). Not a test: it needs a VTR build and takes minutes. run_vtr_flow.py starts
# `$VTR_ROOT/vpr/vpr` by absolute path (through `/usr/bin/env time -v` when GNU time is there),
# so no link on PATH reaches it; under `edashim run --` the exec hook routes it through edashim
# with vpr's own profile. Runs alternate (direct first in odd rounds, edashim first in even ones);
# each run gets a fresh -temp_dir. Prints the wall times, checks that every vpr run logged its
# own line with its profile's allocator verified, that VPR's outputs (.net, .place, .route) are
# the same bytes in every run of both ways, and prints `edashim report --flow` of the last flow.
#
#   VTR_ROOT=dir bench/suite/vtr_flow.sh [-n RUNS] [CIRCUIT.blif [ARCH.xml]]
#
#   default circuit vtr_flow/benchmarks/blif/tseng.blif on vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml,
#   `-starting_stage vpr` (VPR only: no Yosys or ABC needed), VPR's channel-width search and
#   the flow's second run at the relaxed width, as run_vtr_flow.py does by default.
#   EDASHIM=path   the edashim binary (default build/shim/edashim, then edashim on PATH)
#   OUT=dir        keep the evidence there: the run log, the flow report and its SVG timeline
# The edashim runs use a configuration and log of their own (HOME, XDG_* and EDASHIM_LOG under
# the script's temporary directory): the shipped profiles, nothing of the user's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=3
[[ ${1:-} == -n ]] && { runs=$2; shift 2; }
: "${VTR_ROOT:?set VTR_ROOT to a VTR checkout with vpr built (bench/tools/README.md)}"
VTR_ROOT=$(cd "$VTR_ROOT" && pwd)
circuit=${1:-$VTR_ROOT/vtr_flow/benchmarks/blif/tseng.blif}
arch=${2:-$VTR_ROOT/vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml}
flow_py=$VTR_ROOT/vtr_flow/scripts/run_vtr_flow.py
for f in "$circuit" "$arch" "$flow_py"; do
  [[ -f $f ]] || { echo "$f: no such file (VTR_ROOT=$VTR_ROOT: a VTR checkout?)" >&2; exit 2; }
done
[[ -x $VTR_ROOT/vpr/vpr ]] || { echo "$VTR_ROOT/vpr/vpr: not built (bench/tools/README.md)" >&2; exit 2; }
# shellcheck source=../find_edashim.sh
source "$root/bench/find_edashim.sh"
find_edashim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state
export XDG_CACHE_HOME=$work/home/.cache EDASHIM_LOG=$work/runs.jsonl
unset EDASHIM LD_PRELOAD __EDASHIM_CHAIN EDASHIM_FLOW EDASHIM_PROFILE EDASHIM_ALLOCATOR
# The interpreter itself, not a version manager's shell wrapper in front of it (pyenv's shim is
# a bash script): the same in both ways, and out of the noise.
python=$(python3 -c 'import sys; print(sys.executable)')
echo "CPU $(lscpu | sed -n 's/^Model name: *//p' | head -1) ($(nproc) cores), load average $(cut -d' ' -f1-3 /proc/loadavg) at start" >&2
echo "flow: $python $flow_py $circuit $arch -starting_stage vpr, $runs rounds" >&2

status=0
"$python" - "$runs" "$work" "$edashim" "$python" "$flow_py" "$circuit" "$arch" "$VTR_ROOT/vpr/vpr" <<'PY' || status=$?
import glob, hashlib, json, os, statistics, subprocess, sys, time
runs, work, edashim, python, flow_py, circuit, arch, vpr = int(sys.argv[1]), *sys.argv[2:]
flow = [python, flow_py, circuit, arch, "-starting_stage", "vpr"]
ways = {"direct": [], "edashim": [edashim, "run", "--"]}
times = {w: [] for w in ways}
digests = {}  # output file name -> {digest: [run names]}

def run(way, i):
    d = os.path.join(work, f"{way}{i}")
    t = time.perf_counter()
    p = subprocess.run(ways[way] + flow + ["-temp_dir", d], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{way} run {i}: run_vtr_flow.py exited {p.returncode}:\n{p.stdout[-2000:]}")
    outs = sorted(glob.glob(os.path.join(d, "*.net")) + glob.glob(os.path.join(d, "*.place")) + glob.glob(os.path.join(d, "*.route")))
    if not outs:
        sys.exit(f"{way} run {i}: no .net/.place/.route in {d}")
    for f in outs:
        h = hashlib.sha256(open(f, "rb").read()).hexdigest()[:16]
        digests.setdefault(os.path.basename(f), {}).setdefault(h, []).append(f"{way}{i}")
    times[way].append(wall)
    print(f"round {i} {way:8s} {wall:7.2f} s", file=sys.stderr, flush=True)

for i in range(1, runs + 1):
    order = ["direct", "edashim"] if i % 2 else ["edashim", "direct"]
    for w in order:
        run(w, i)

ok = True
for name, by in sorted(digests.items()):
    if len(by) != 1:
        ok = False
        print(f"DIFFERENT {name}: " + "; ".join(f"{h}: {' '.join(r)}" for h, r in by.items()))
    else:
        print(f"identical {name} in all {2 * runs} runs ({next(iter(by))})")
for w in ways:
    v = times[w]
    print(f"{w:8s} median {statistics.median(v):7.2f} s  min {min(v):7.2f}  max {max(v):7.2f}  ({' '.join(f'{x:.2f}' for x in v)})")
print(f"edashim/direct median ratio {statistics.median(times['edashim']) / statistics.median(times['direct']):.3f}")

# Every vpr run below an edashim flow: its own line, called by its absolute path, verified.
lines = [json.loads(l) for l in open(os.path.join(work, "runs.jsonl"))]
tops = [l for l in lines if l.get("parent_run") is None]
vprs = [l for l in lines if l.get("tool") == "vpr"]
# argv[0] as the flow script called it: the hook routed the exec of that path, no PATH lookup.
bad = [l for l in vprs if not l.get("allocator_verified") or l.get("flow") not in {t["run_id"] for t in tops}
       or (l.get("argv") or [None])[0] != vpr]
print(f"log: {len(tops)} flows, {len(vprs)} vpr runs, {len(vprs) - len(bad)} with the allocator verified in the flow")
for l in vprs[-1:]:
    print("last vpr line: " + json.dumps({k: l.get(k) for k in ("tool", "path", "argv", "flow", "parent_run", "profile", "config_files", "arm", "allocator", "allocator_verified", "verification", "wall_s")}))
if bad or len(tops) != runs or not vprs:
    ok = False
    print(f"NOT ALL VPR RUNS ROUTED AND VERIFIED: {len(bad)} bad, {len(tops)} flows for {runs} rounds")
sys.exit(0 if ok else 1)
PY
(cd "$work" && "$edashim" report --flow last --svg "$work/flow.svg" > "$work/report.txt" 2>&1 && cat "$work/report.txt") ||
  { echo "edashim report --flow last failed:" >&2; cat "$work/report.txt" >&2; }
if [[ -n ${OUT:-} ]]; then
  mkdir -p "$OUT" && cp "$work/runs.jsonl" "$work/report.txt" "$OUT/" && { [[ ! -f $work/flow.svg ]] || cp "$work/flow.svg" "$OUT/"; }
fi
exit "$status"
