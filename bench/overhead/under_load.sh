#!/usr/bin/env bash
# A tool's start and end under load, where a second process would have to be scheduled: every
# core busy with a CPU hog (or a build), `$(TOOL ARGS)` through its edashim link against the same
# with EDASHIM=off, and with EDASHIM=off and the allocator the link preloads (the allocator's own
# share, which is the user's choice, not edashim's cost), interleaved, N runs each; median and p90
# in ms.
#   bench/overhead/under_load.sh BUILD_DIR [N [TOOL [ARGS...]]]   (default: 150 yosys -V)
set -euo pipefail
build=$(cd "${1:?build directory}" && pwd)
n=${2:-150}
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- yosys -V
work=$(mktemp -d /tmp/edashim-under-load-XXXXXX)
hogs=()
cleanup() {
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/shims" "$work/home"
ln -s "$build/shim/edashim" "$work/shims/$1"
for _ in $(seq "$(nproc)"); do
  (while :; do :; done) &
  hogs+=($!)
done
HOME=$work/home XDG_STATE_HOME=$work/home/state XDG_CONFIG_HOME=$work/home/config XDG_CACHE_HOME=$work/home/cache \
PATH=$work/shims:$PATH python3 - "$n" "$@" <<'PY'
import os, random, statistics, subprocess, sys, time
n, cmd = int(sys.argv[1]), sys.argv[2:]
import json
arms = {"through the link": dict(os.environ), "EDASHIM=off": dict(os.environ, EDASHIM="off")}
# The allocator's own share: what the link preloads (from its log line), with edashim off.
subprocess.run(cmd, stdout=subprocess.PIPE, check=True)
log = os.path.join(os.environ["XDG_STATE_HOME"], "edashim", "runs.jsonl")
library = json.loads(open(log).read().splitlines()[-1])["allocator"]["library"]
if library:
    arms["EDASHIM=off, its allocator preloaded"] = dict(os.environ, EDASHIM="off", LD_PRELOAD=library)
times = {a: [] for a in arms}
for _ in range(5):
    for env in arms.values():
        subprocess.run(cmd, env=env, stdout=subprocess.PIPE, check=True)
for _ in range(n):
    order = list(arms)
    random.shuffle(order)
    for a in order:
        t0 = time.perf_counter()
        subprocess.run(cmd, env=arms[a], stdout=subprocess.PIPE, check=True)  # as $(...) does
        times[a].append((time.perf_counter() - t0) * 1e3)
print("load %.2f, %d runs each of %s, interleaved" % (os.getloadavg()[0], n, " ".join(cmd)))
for a, t in times.items():
    t.sort()
    print("  %-37s median %.1f ms  p90 %.1f ms" % (a, statistics.median(t), t[int(0.9 * len(t))]))
PY
