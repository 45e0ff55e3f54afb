#!/usr/bin/env bash
# What a short child of a tool (PROGRAM, default /bin/true) pays for what it inherits from the
# tool's run, not a test. Captures the environment a child of `yosys` gets through its link (the
# shipped profile: jemalloc, the probe recording), then times PROGRAM started N times a round in
# arms that take that environment apart:
#   plain        the caller's environment: the child as it starts directly
#   tool-child   exactly what a child of the yosys run inherits (allocator + probe, recording)
#   probe-only   the same without the allocator: the hook and the probe's records
#   alloc-only   the allocator alone, nothing of edashim's own
#   floor-alloc  the allocator's build for glibc 2.28 alone (what a run preloads where the tool's
#                libc is older than the build alloc-only has, glibc-X.Y/: install/allocators)
#   system-alloc the system's build of the same allocator alone (Debian's jemalloc with its C++
#                part, where the run preloads edashim's own build: install/allocators)
# Usage: bench/child_cost/run.sh BUILD_DIR [ROUNDS] [N] [PROGRAM]
# Prints each arm's median per child over rounds, and paired with plain in the same round.
set -euo pipefail
build=$(cd "${1:?build directory}" && pwd)
rounds=${2:-15} n=${3:-500} program=${4:-/bin/true}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/edashim-child-cost-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/shims" "$work/arms"
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state
export XDG_CACHE_HOME=$work/home/.cache EDASHIM_LOG=$work/runs.jsonl
unset EDASHIM LD_PRELOAD __EDASHIM_CHAIN MALLOC_CONF TMPDIR
ln -s "$build/shim/edashim" "$work/shims/yosys"
cc -O2 -o "$work/child_cost" "$here/child_cost.c"
env | sort > "$work/arms/plain"
PATH=$work/shims:$PATH yosys -q -p "!env > $work/child.env"
sort "$work/child.env" | grep -v '^_=' > "$work/arms/tool-child"
preload=$(sed -n 's/^LD_PRELOAD=//p' "$work/arms/tool-child")
probe=$(tr ': ' '\n\n' <<< "$preload" | grep libedashim_probe)
alloc=$(tr ': ' '\n\n' <<< "$preload" | grep -v libedashim_probe | head -1)
sed "s|^LD_PRELOAD=.*|LD_PRELOAD=$probe|" "$work/arms/tool-child" > "$work/arms/probe-only"
{ grep -v '^LD_PRELOAD=' "$work/arms/plain"; echo "LD_PRELOAD=$alloc"; } > "$work/arms/alloc-only"
floor_alloc=$alloc
[[ $alloc == */glibc-*/* ]] && floor_alloc=$(dirname "$(dirname "$alloc")")/$(basename "$alloc")
{ grep -v '^LD_PRELOAD=' "$work/arms/plain"; echo "LD_PRELOAD=$floor_alloc"; } > "$work/arms/floor-alloc"
system_alloc=$(ls /usr/lib/*-linux-gnu/"$(basename "$alloc")" 2>/dev/null | head -1)
{ grep -v '^LD_PRELOAD=' "$work/arms/plain"; echo "LD_PRELOAD=${system_alloc:-$alloc}"; } > "$work/arms/system-alloc"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds x $n starts of $program"
echo "# tool-child LD_PRELOAD=$preload"
echo "# floor-alloc LD_PRELOAD=$floor_alloc"
echo "# system-alloc LD_PRELOAD=${system_alloc:-$alloc (no system build of it)}"
"$work/child_cost" "$rounds" "$n" "$program" "$work"/arms/plain "$work"/arms/tool-child "$work"/arms/probe-only \
  "$work"/arms/alloc-only "$work"/arms/floor-alloc "$work"/arms/system-alloc > "$work/times"
python3 - "$work/times" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for r, arm, wall, cpu in rows:
    by.setdefault(arm, {})[int(r)] = (float(wall), float(cpu))
plain = by["plain"]
print(f"{'arm':12} {'wall us':>8} {'cpu us':>8} {'+wall vs plain':>15} {'+cpu vs plain':>14}")
for arm in ["plain", "tool-child", "probe-only", "alloc-only", "floor-alloc", "system-alloc"]:
    d = by[arm]
    w = st.median(v[0] for v in d.values()); c = st.median(v[1] for v in d.values())
    dw = st.median(d[r][0] - plain[r][0] for r in d); dc = st.median(d[r][1] - plain[r][1] for r in d)
    print(f"{arm:12} {w:8.0f} {c:8.0f} {dw:+15.0f} {dc:+14.0f}")
PY
