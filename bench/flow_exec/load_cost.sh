#!/usr/bin/env bash
# What loading libedashim_probe.so costs one process (issue 26 item 6), not a test: N processes
# each time one dlopen of the library, interleaved with the same for an empty library (the floor
# any preloaded library pays: open, map, relocate) and, when given, another build of the library
# (before/after a change). Min, 10th percentile and median, in microseconds: on a loaded machine
# the low percentiles are what the code costs, the median what the machine adds.
# Usage: bench/flow_exec/load_cost.sh BUILD_DIR [N] [OTHER_LIBRARY]
set -euo pipefail
build=$(cd "${1:?build directory}" && pwd)
n=${2:-400}
other=${3:-}
work=$(mktemp -d /tmp/edashim-load-cost-XXXXXX)
trap 'rm -rf "$work"' EXIT
cat > "$work/dlo.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
int main(int argc, char** argv) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  void* h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (!h) return 1;
  printf("%.2f\n", (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3);
  return 0;
}
C
printf 'void edashim_load_cost_empty(void) {}\n' > "$work/empty.c"
cc -O2 -o "$work/dlo" "$work/dlo.c" -ldl
cc -O2 -fPIC -shared -o "$work/empty.so" "$work/empty.c"
libs=("$work/empty.so" "$build/shim/libedashim_probe.so")
[ -z "$other" ] || libs+=("$(cd "$(dirname "$other")" && pwd)/$(basename "$other")")
# The hook's bookkeeping is in the environment, as under a run; no records (no __EDASHIM_PROBE).
export __EDASHIM_OURS=$build/shim/libedashim_probe.so
for _ in $(seq "$n"); do
  for i in "${!libs[@]}"; do echo "$i $("$work/dlo" "${libs[$i]}")"; done
done > "$work/times"
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg); $n processes each"
for i in "${!libs[@]}"; do
  awk -v i="$i" '$1 == i {print $2}' "$work/times" | sort -n |
    awk -v name="${libs[$i]##*/}" '{a[NR] = $1} END {printf "%-26s min %6.1f  p10 %6.1f  median %6.1f us\n", name, a[1], a[int(NR / 10) + 1], a[int(NR / 2) + 1]}'
done
