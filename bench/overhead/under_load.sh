#!/usr/bin/env bash
# A tool's start and end under load, where a second process would have to be scheduled: every
# core busy with a CPU hog (or a build), `$(TOOL ARGS)` through its edashim link against the same
# with EDASHIM=off, interleaved, N runs each; median and p90 in ms.
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
arms = {"through the link": dict(os.environ), "EDASHIM=off": dict(os.environ, EDASHIM="off")}
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
    print("  %-18s median %.1f ms  p90 %.1f ms" % (a, statistics.median(t), t[int(0.9 * len(t))]))
PY
