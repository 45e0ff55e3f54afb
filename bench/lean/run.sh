#!/usr/bin/env bash
# Regenerates the lean-profile search of issue 17 (item 4): for each allocator, `edashim tune`'s
# coordinate search over its memory options (README "Tuning for memory") on one Yosys workload,
# within 5% of glibc's peak memory, then `edashim bench` of baseline, the allocator as shipped
# and the chosen setting on workloads the search did not see. Writes a results page and the
# chosen settings (never profiles/named/: a lean profile is shipped from a real run, by hand).
# Not part of ctest: it takes hours at full size and wants a quiet machine.
#
#   bench/lean/run.sh [-n RUNS] [--allocators "jemalloc mimalloc tcmalloc tbbmalloc"] [--quick] [--out DIR]
#
#   -n RUNS        runs per setting in each tune step and per arm in each bench (default 10)
#   --warmup N     unmeasured runs per setting first (default 1)
#   --allocators   which allocators to search (default: all four)
#   --quick        one value for two options per allocator: a smoke test of this script, whose
#                  numbers mean nothing (the page says so)
#   --out DIR      where the page goes (default bench/results/lean-YYYY-MM-DD)
#   WORKLOADS=DIR  epfl_bar.v (the search) and picorv32.v (the confirmation) are read from there
#                  (default: ../shared/workloads beside the checkout, as bench/run_yosys_bench.sh);
#                  without them, generated designs (bench/gen_designs.py) stand in, and the page says so.
#   PIN_CPU=N      every tune and bench pinned to CPU N (taskset); the page says so
#   EDASHIM=path   the edashim binary (default build/shim/edashim, then edashim on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=10 warmup=1 allocators="jemalloc mimalloc tcmalloc tbbmalloc" quick=0 out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --allocators) allocators=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown argument: $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
# shellcheck source=../find_edashim.sh
source "$root/bench/find_edashim.sh"
find_edashim
command -v yosys > /dev/null || { echo "yosys not on PATH" >&2; exit 2; }

# The search space, per allocator: the options that moved peak memory on Debian 12's versions,
# the one expected to matter most first (coordinate search fixes each before the next). Values
# are on the memory-saving side of each default; the default itself is always measured too.
declare -A search=(
  [jemalloc]="jemalloc.retain=false jemalloc.dirty_decay_ms=0,1000,5000 jemalloc.narenas=1,2
    jemalloc.oversize_threshold=1048576,4194304 jemalloc.background_thread=true jemalloc.tcache_max=4096,16384"
  [mimalloc]="mimalloc.eager_commit=false mimalloc.decommit_delay=0,5,10 mimalloc.segment_decommit_delay=0,50,200
    mimalloc.page_reset=true mimalloc.eager_commit_delay=4,16 mimalloc.abandoned_page_decommit=true"
  [tcmalloc]="tcmalloc.aggressive_decommit=true tcmalloc.release_rate=2,5,10
    tcmalloc.max_total_thread_cache_bytes=4194304,8388608,16777216 tcmalloc.transfer_num_obj=8,16"
  # tbbmalloc has one size knob: a threshold that can only keep more cached (README).
  [tbbmalloc]="tbbmalloc.set_huge_size_threshold=8388608,16777216,67108864"
)
declare -A quick_search=(
  [jemalloc]="jemalloc.retain=false jemalloc.dirty_decay_ms=1000"
  [mimalloc]="mimalloc.eager_commit=false mimalloc.decommit_delay=0"
  [tcmalloc]="tcmalloc.aggressive_decommit=true tcmalloc.release_rate=10"
  [tbbmalloc]="tbbmalloc.set_huge_size_threshold=8388608"
)
for a in $allocators; do
  [[ -n ${search[$a]:-} ]] || { echo "unknown allocator '$a' (jemalloc mimalloc tcmalloc tbbmalloc)" >&2; exit 2; }
done

workloads=${WORKLOADS:-$root/../shared/workloads}
[[ -d $workloads ]] && workloads=$(cd "$workloads" && pwd) || workloads=""
out=${out:-$root/bench/results/lean-$(date -u +%Y-%m-%d)}
mkdir -p "$out/data"
out=$(cd "$out" && pwd)
rm -f "$out"/data/*
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Workloads: NAME DESIGN YOSYS-SCRIPT (the design is copied in fresh for every run as design.v).
synth_generic() { echo "read_verilog design.v; synth -top $1; abc; write_verilog -noattr net.v"; }
if [[ -n $workloads && -f $workloads/epfl_bar.v ]]; then
  search_wl=(epfl_bar "$workloads/epfl_bar.v" "$(synth_generic top)")
else
  python3 "$root/bench/gen_designs.py" --ops 120 -o "$work/gen_120.v"
  search_wl=(generated_ops120 "$work/gen_120.v" "$(synth_generic top)")
fi
confirm_wl=()
if [[ -n $workloads && -f $workloads/picorv32.v ]]; then
  confirm_wl+=(picorv32_synth_ice40 "$workloads/picorv32.v"
    "read_verilog design.v; synth_ice40 -top picorv32; write_verilog -noattr net.v")
else
  python3 "$root/bench/gen_designs.py" --ops 60 -o "$work/gen_60.v"
  confirm_wl+=(generated_ops60 "$work/gen_60.v" "$(synth_generic top)")
fi

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
machine="$(date -u +%Y-%m-%d), CPU $cpu ($(nproc) cores), Linux $(uname -r), $(yosys -V | head -1), edashim $("$edashim" --version | awk '{print $2}'), load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
pin=()
if [[ -n ${PIN_CPU:-} ]]; then
  pin=(taskset -c "$PIN_CPU")
  machine+=", every run pinned to CPU $PIN_CPU (taskset)"
fi
# The virtual-size budget needs tune's --max-vm-ratio (issue 17 item 2); without it, RSS only.
budget=(--max-rss-ratio 1.05)
"$edashim" tune --help 2>&1 | grep -q -- --max-vm-ratio && budget+=(--max-vm-ratio 1.05)
# shown ARGS...: a command line as the page shows it: arguments with spaces quoted, this machine's
# paths as $ROOT, $OUT, $WORKLOADS, $WORK.
shown() {
  local s="" a
  for a in "$@"; do [[ $a == *[\ \;\"]* ]] && s+=" '$a'" || s+=" $a"; done
  s=${s# }; s=${s//$edashim/edashim}; s=${s//$out/\$OUT}; s=${s//$root/\$ROOT}
  [[ -n $workloads ]] && s=${s//$workloads/\$WORKLOADS}
  echo "${s//$work/\$WORK}"
}

# run_in DIR DESIGN CMD...: CMD in a directory of its own holding the design.
run_in() {
  local dir=$1 design=$2; shift 2
  mkdir -p "$dir" && cp "$design" "$dir/design.v"
  (cd "$dir" && ${pin[@]+"${pin[@]}"} "$@")
}

echo "allocator file" > "$out/data/index"
for a in $allocators; do
  opts=() list=${search[$a]}
  [[ $quick == 1 ]] && list=${quick_search[$a]}
  for o in $list; do opts+=(--option "$o"); done
  name=${search_wl[0]} design=${search_wl[1]} script=${search_wl[2]}
  lean=$out/data/$a-lean.toml
  tune=("$edashim" tune --allocator "$a" "${opts[@]}" "${budget[@]}" -n "$runs" --warmup "$warmup"
    --fresh-copy design.v --on disk --plot "$out/$a-tune.svg" --write "$lean" --force -- yosys -q -p "$script")
  echo "== $a: tune on $name" >&2
  echo "$ $(shown "${tune[@]}")" > "$out/data/$a.tune.txt"
  run_in "$work/tune-$a" "$design" "${tune[@]}" >> "$out/data/$a.tune.txt" ||
    echo "   $a: tune failed (status $?); see above and $out/data/$a.tune.txt" >&2
  arms=(-p baseline -p "$a")
  [[ -f $lean ]] && arms+=(-p "$lean")
  for ((i = 0; i < ${#confirm_wl[@]}; i += 3)); do
    cname=${confirm_wl[i]} cdesign=${confirm_wl[i + 1]} cscript=${confirm_wl[i + 2]}
    stem=$out/data/$a.$cname
    bench=("$edashim" bench "${arms[@]}" -n "$runs" --warmup "$warmup" --fresh-copy design.v --on disk
      --compare-outputs net.v --export-markdown "$stem.md" --export-json "$stem.json" -- yosys -q -p "$cscript")
    echo "== $a: bench on $cname" >&2
    echo "$ $(shown "${bench[@]}")" > "$stem.cmd"
    run_in "$work/bench-$a-$cname" "$cdesign" "${bench[@]}" > /dev/null ||
      echo "   $a: bench on $cname failed (status $?)" >&2
    [[ -f $stem.json ]] && echo "$a $stem.json" >> "$out/data/index"
  done
done

command="bench/lean/run.sh -n $runs --warmup $warmup --allocators \"$allocators\"$([[ $quick == 1 ]] && echo " --quick")"
python3 "$here/page.py" "$out" "$machine" "$command" "${search_wl[0]}" "$quick" "$allocators" "$root" "$workloads" "$work"
echo "written: $out/README.md" >&2
