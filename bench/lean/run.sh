#!/usr/bin/env bash
# Regenerates the lean-profile search of issue 17 (item 4): for each allocator, `edashim tune`'s
# coordinate search over its memory options (docs/allocators.md, "Tuning for memory") on one Yosys workload,
# then one `edashim bench` per confirmation workload (none of which the search saw) of baseline,
# every allocator as shipped and every lean setting found. Writes a results page and the chosen
# settings (never profiles/named/: a lean profile is shipped from a real run, by hand).
# Not part of ctest: it takes about an hour on 2 cores and wants a quiet machine.
#
#   bench/lean/run.sh [-n RUNS] [--allocators "jemalloc mimalloc tcmalloc tbbmalloc"] [--quick] [--out DIR]
#
#   -n RUNS        runs per setting in each tune step and per arm in each bench (default 5)
#   --warmup N     unmeasured runs per setting first (default 1)
#   --allocators   which allocators to search (default: all four)
#   --search-rss R the search's peak-RSS budget relative to glibc (default 1.00: tighter than the
#                  goal's 1.05, as headroom for designs the search did not see); its peak virtual
#                  size budget is the goal's, 1.05
#   --quick        one value for two options per allocator and the Yosys confirmation only: a
#                  smoke test of this script, whose numbers mean nothing (the page says so)
#   --out DIR      where the page goes (default bench/results/lean-YYYY-MM-DD)
#   WORKLOADS=DIR  epfl_bar.v (the search) and picorv32.v (a confirmation) are read from there
#                  (default: ../shared/workloads beside the checkout, as bench/run_yosys_bench.sh);
#                  without them, generated designs (bench/gen_designs.py) stand in, and the page says so.
#   BIG_OPS=N      the generated design confirming at a larger heap (default 400 operations,
#                  about 180 MB peak RSS with glibc; 0 leaves it out)
#   VTR_ROOT=dir [VPR=path]   VPR on VTR's tseng (channel-width search), with a glibc baseline
#                  (a copy without libtbbmalloc_proxy, made with patchelf, as bench/suite does)
#   YICES=path YICES_SRC=dir  yices-smt2 on a QF_BV regression instance of the Yices checkout
#   PIN_CPU="N ..." runs pinned (taskset); with several CPUs the searches, then the confirmations,
#                  are shared among them, one at a time per CPU. The page says so.
#   EDASHIM=path   the edashim binary (default build/shim/edashim, then edashim on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=5 warmup=1 allocators="jemalloc mimalloc tcmalloc tbbmalloc" quick=0 out="" search_rss=1.00
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --allocators) allocators=$2; shift 2 ;;
    --search-rss) search_rss=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown argument: $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
# shellcheck source=../find_edashim.sh
source "$root/bench/find_edashim.sh"
find_edashim
command -v yosys > /dev/null || { echo "yosys not on PATH" >&2; exit 2; }

# The search space, per allocator: the options that moved peak RSS on Debian 12's versions in a
# one-run screen of each, the biggest lever first (coordinate search fixes each before the next).
# Values are on the memory-saving side of each default; the default itself is always measured
# too. Left out after a screen on EPFL bar: jemalloc's lg_extent_max_active_fit=0 (RSS 2.3x) and
# background_thread=true (the thread's reservation: peak virtual size 3.4x), options for threads
# yosys does not start (mimalloc's abandoned_page_decommit), values that changed nothing.
declare -A search=(
  [jemalloc]="jemalloc.dirty_decay_ms=0,1000 jemalloc.retain=false jemalloc.narenas=1 jemalloc.tcache_max=4096"
  [mimalloc]="mimalloc.decommit_delay=0,5 mimalloc.segment_decommit_delay=0 mimalloc.page_reset=true
    mimalloc.eager_commit=false"
  [tcmalloc]="tcmalloc.aggressive_decommit=true tcmalloc.max_total_thread_cache_bytes=4194304
    tcmalloc.transfer_num_obj=8 tcmalloc.release_rate=10"
  # tbbmalloc has one size knob: a threshold that can only keep more cached (docs/allocators.md).
  [tbbmalloc]="tbbmalloc.set_huge_size_threshold=8388608"
)
declare -A quick_search=(
  [jemalloc]="jemalloc.dirty_decay_ms=0 jemalloc.retain=false"
  [mimalloc]="mimalloc.decommit_delay=0 mimalloc.page_reset=true"
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
rm -f "$out"/data/* "$out"/*.svg
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big_ops=${BIG_OPS:-400}
[[ $quick == 1 ]] && big_ops=0

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
machine="$(date -u +%Y-%m-%d), CPU $cpu ($(nproc) cores), Linux $(uname -r), $(yosys -V | head -1), edashim $("$edashim" --version | awk '{print $2}'), load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
read -r -a lanes <<< "${PIN_CPU:-}"
if [[ ${#lanes[@]} -gt 1 ]]; then
  machine+=", runs pinned (taskset) and shared among CPUs ${lanes[*]}, one bench or tune at a time on each"
elif [[ ${#lanes[@]} == 1 ]]; then
  machine+=", every run pinned to CPU ${lanes[0]} (taskset)"
fi
[[ ${#lanes[@]} -gt 0 ]] || lanes=("")

# shown ARGS...: a command line as the page shows it: arguments with spaces quoted, this machine's
# paths as $ROOT, $OUT, $WORKLOADS, $WORK, $VTR_ROOT, $YICES_SRC.
shown() {
  local s="" a
  for a in "$@"; do [[ $a == *[\ \;\"]* ]] && s+=" '$a'" || s+=" $a"; done
  s=${s# }; s=${s//$edashim/edashim}; s=${s//$out/\$OUT}; s=${s//$root/\$ROOT}
  [[ -n $workloads ]] && s=${s//$workloads/\$WORKLOADS}
  [[ -n ${VTR_ROOT:-} ]] && s=${s//$VTR_ROOT/\$VTR_ROOT}
  [[ -n ${YICES_SRC:-} ]] && s=${s//$YICES_SRC/\$YICES_SRC}
  [[ -n ${YICES:-} ]] && s=${s//$YICES/\$YICES}
  echo "${s//$work/\$WORK}"
}

# in_lane CPU DIR CMD...: CMD in DIR, pinned to CPU when there is one.
in_lane() {
  local cpu=$1 dir=$2; shift 2
  mkdir -p "$dir"
  if [[ -n $cpu ]]; then (cd "$dir" && taskset -c "$cpu" "$@"); else (cd "$dir" && "$@"); fi
}

# run_lanes JOB...: each JOB ("function args") runs in one of the lanes, one at a time per lane,
# in the order given (longest first balances best), with lane_cpu set to the lane's CPU; waits.
# job ARGS...: ARGS as one string for run_lanes, each quoted for eval.
job() { printf '%q ' "$@"; }
run_lanes() {
  local -a per_lane=()
  local i=0 job
  for job in "$@"; do per_lane[i % ${#lanes[@]}]+="$job"$'\n'; i=$((i + 1)); done
  local pids=() l
  for l in "${!lanes[@]}"; do
    [[ -n ${per_lane[l]:-} ]] || continue
    (lane_cpu=${lanes[l]}; while IFS= read -r job; do [[ -z $job ]] || eval "$job"; done <<< "${per_lane[l]}") &
    pids+=($!)
  done
  for l in "${pids[@]}"; do wait "$l" || true; done
}

# The search: EPFL bar (real, combinational, yosys with ABC), or a generated stand-in.
synth_generic() { echo "read_verilog design.v; synth -top $1; abc; write_verilog -noattr net.v"; }
if [[ -n $workloads && -f $workloads/epfl_bar.v ]]; then
  search_name=epfl_bar search_design=$workloads/epfl_bar.v
else
  python3 "$root/bench/gen_designs.py" --ops 120 -o "$work/gen_120.v"
  search_name=generated_ops120 search_design=$work/gen_120.v
fi

# search_one ALLOCATOR: tune's coordinate search within both budgets. On a design this small no
# setting gets peak virtual size within 5% (each allocator reserves address space at start), so
# memory decides every step (the value closest to the budgets) and tune's --write refuses the end;
# --write-ended keeps where the search ended, which the confirmations then measure.
search_one() {
  local a=$1 cpu=$lane_cpu opts=() o list=${search[$1]}
  [[ $quick == 1 ]] && list=${quick_search[$a]}
  for o in $list; do opts+=(--option "$o"); done
  local tune=("$edashim" tune --allocator "$a" "${opts[@]}" --max-rss-ratio "$search_rss" --max-vm-ratio 1.05
    -n "$runs" --warmup "$warmup" --fresh-copy design.v --on disk --plot "$out/$a-tune.svg"
    --write-ended "$out/data/$a-lean.toml" --force
    -- yosys -q -p "$(synth_generic top)")
  echo "== $a: tune on $search_name${cpu:+ (CPU $cpu)}" >&2
  echo "$ $(shown "${tune[@]}")" > "$out/data/$a.tune.txt"
  mkdir -p "$work/tune-$a" && cp "$search_design" "$work/tune-$a/design.v"
  in_lane "$cpu" "$work/tune-$a" "${tune[@]}" >> "$out/data/$a.tune.txt" 2> "$work/tune-$a.err" ||
    echo "   $a: tune failed (status $?); see $out/data/$a.tune.txt and $work/tune-$a.err" >&2
}
# Longest search first: the most settings (steps x 2 + values).
jobs=()
for a in $(for a in $allocators; do
  n=0; for o in ${search[$a]}; do v=${o#*=}; n=$((n + 2 + $(tr ',' '\n' <<< "$v" | wc -l))); done
  echo "$n $a"; done | sort -rn | awk '{print $2}'); do
  jobs+=("$(job search_one "$a")")
done
run_lanes "${jobs[@]}"

# The confirmations: baseline, each allocator as shipped, each lean setting found.
arms=(-p baseline)
for a in $allocators; do arms+=(-p "$a"); done
# A search that kept no value ended on the allocator as shipped: that arm is there already.
for a in $allocators; do grep -q '^\[' "$out/data/$a-lean.toml" 2> /dev/null && arms+=(-p "$out/data/$a-lean.toml"); done
echo "workload tool json" > "$out/data/index"
# confirm_one NAME TOOL DESIGN COMPARE -- CMD...: one bench; DESIGN ("" for none) is copied
# in fresh for every run as design.v.
confirm_one() {
  local name=$1 tool=$2 design=$3 compare=$4 cpu=$lane_cpu; shift 5
  local cmd=("$@") fresh=() stem=$out/data/confirm.$name d=$work/confirm-$name
  mkdir -p "$d"
  [[ -n $design ]] && { cp "$design" "$d/design.v"; fresh=(--fresh-copy design.v --on disk); }
  local bench=("$edashim" bench "${arms[@]}" -n "$runs" --warmup "$warmup" ${fresh[@]+"${fresh[@]}"} $compare
    --export-markdown "$stem.md" --export-json "$stem.json" -- "${cmd[@]}")
  echo "== confirm on $name${cpu:+ (CPU $cpu)}" >&2
  echo "$ $(shown "${bench[@]}")" > "$stem.cmd"
  in_lane "$cpu" "$d" "${bench[@]}" > /dev/null 2> "$d.err" ||
    echo "   $name: bench failed (status $?); see $d.err" >&2
  [[ -f $stem.json ]] && echo "$name $tool confirm.$name.json" >> "$out/data/index"
}
jobs=()
if [[ $big_ops -gt 0 ]]; then
  python3 "$root/bench/gen_designs.py" --ops "$big_ops" -o "$work/gen_big.v"
  jobs+=("$(job confirm_one "generated_ops$big_ops" yosys "$work/gen_big.v" "--compare-outputs net.v" -- yosys -q -p "$(synth_generic top)")")
fi
if [[ -n $workloads && -f $workloads/picorv32.v ]]; then
  jobs+=("$(job confirm_one picorv32_synth_ice40 yosys "$workloads/picorv32.v" "--compare-outputs net.v" -- \
    yosys -q -p "read_verilog design.v; synth_ice40 -top picorv32; write_verilog -noattr net.v")")
else
  python3 "$root/bench/gen_designs.py" --ops 60 -o "$work/gen_60.v"
  jobs+=("$(job confirm_one generated_ops60 yosys "$work/gen_60.v" "--compare-outputs net.v" -- yosys -q -p "$(synth_generic top)")")
fi
if [[ $quick == 0 && -n ${VTR_ROOT:-} ]]; then
  vpr=${VPR:-$VTR_ROOT/build/vpr/vpr}
  if [[ -x $vpr ]]; then
    # A VPR built with TBB links libtbbmalloc_proxy: its own malloc is TBBmalloc. The glibc
    # baseline is a copy without that DT_NEEDED, made here for the measurement only.
    if readelf -d "$vpr" 2> /dev/null | grep -q 'NEEDED.*libtbbmalloc_proxy'; then
      if command -v patchelf > /dev/null; then
        cp "$vpr" "$work/vpr-glibc" && patchelf --remove-needed libtbbmalloc_proxy.so.2 "$work/vpr-glibc"
        vpr=$work/vpr-glibc
      else
        echo "skipping vpr: it links libtbbmalloc_proxy.so.2 and its glibc baseline needs patchelf" >&2
        vpr=""
      fi
    fi
    [[ -n $vpr ]] && jobs+=("$(job confirm_one vpr_tseng_search vpr "" \
      "--compare-outputs tseng.net,tseng.place,tseng.route --no-compare-stdout" -- "$vpr" \
      "$VTR_ROOT/vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml" "$VTR_ROOT/vtr_flow/benchmarks/blif/tseng.blif")")
  else
    echo "skipping vpr: no executable $vpr (set VPR)" >&2
  fi
fi
if [[ $quick == 0 && -n ${YICES:-} && -n ${YICES_SRC:-} ]]; then
  f=$YICES_SRC/tests/regress/coverage/smtlib/QF_BV/bruttomesso/lfsr/lfsr_002_095_128.smt2
  [[ -f $f ]] && jobs+=("$(job confirm_one yices_lfsr_002_095_128 yices-smt2 "" --compare-outputs -- "$YICES" "$f")") ||
    echo "skipping yices: no $f" >&2
fi
run_lanes "${jobs[@]}"

command="bench/lean/run.sh -n $runs --warmup $warmup --allocators \"$allocators\" --search-rss $search_rss$([[ $quick == 1 ]] && echo " --quick" || true)"
python3 "$here/page.py" "$out" "$machine" "$command" "$search_name" "$quick" "$allocators" "$search_rss" \
  "$root" "$workloads" "$work" "${VTR_ROOT:-}" "${YICES_SRC:-}" "${YICES:-}"
echo "written: $out/README.md" >&2
