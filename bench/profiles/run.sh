#!/usr/bin/env bash
# Regenerates the table behind the shipped yosys profile (profiles/defaults/yosys.toml):
# every allocator, a few tuning points, the locale on its own, on real yosys synthesis.
#   bench/profiles/run.sh [-n RUNS]      -> bench/results/yosys_profiles.md (+ one SVG per design)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=8
[[ ${1:-} == -n ]] && n=$2
exec "$here/../run_yosys_bench.sh" -n "$n" --ops "120" --with-workloads \
  --out "$here/../results/yosys_profiles.md" \
  --profiles "baseline mimalloc jemalloc tcmalloc tbbmalloc $here/locale-c.toml $here/jemalloc-scratch.toml $here/jemalloc-bg.toml $here/mimalloc-tuned.toml"
