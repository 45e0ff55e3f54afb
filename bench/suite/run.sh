#!/usr/bin/env bash
# The open-flow benchmark suite (issue 14): every tool of an open FPGA and formal flow that is
# installed here, each on its own workloads, through `edashim bench` with every allocator arm,
# outputs compared. Writes one page per tool and a summary table across tools, each headed by the
# CPU model and kernel. Not part of ctest: it takes minutes and wants a quiet machine.
#
#   bench/suite/run.sh [-n RUNS] [--warmup N] [--tools "yosys nextpnr-ice40 ..."] [--out DIR]
#
#   -n RUNS     measured runs per arm and workload (default 3: the whole suite then takes about
#               15-20 minutes on 2 cores). For a table worth a profile, use -n 10 or more on an
#               otherwise idle machine (about 3x as long per 10 runs), and repeat on another day.
#   --arms "…"  the profiles compared (default: baseline mimalloc jemalloc tcmalloc tbbmalloc)
#   --out DIR   where the pages go (default bench/results/suite-YYYY-MM-DD)
#   WORKLOADS=DIR   designs read from there, never copied into the repository: picorv32.v
#               (github.com/YosysHQ/picorv32), optionally epfl_bar.v (EPFL combinational suite).
#               Without it, the flow runs on examples/counter/counter.v alone.
#   PIN_CPU=N       run every bench pinned to CPU N (taskset), other work kept off it
#   EDASHIM=path    the edashim binary (default build/shim/edashim, then edashim on PATH)
#   VPR_STUDY=0, VPR_STUDY_SEARCH=1   leave out the published VPR study's commands (sqrt8, clma at
#               width 128), or add its clma with the channel-width search (a minute a run)
#   VTR_ROOT=dir, VPR=path, YICES=path   a VTR checkout (its circuits, and its vpr unless VPR
#               names another binary), a yices-smt2 binary, install prefix or Yices checkout
#               (YICES_SRC=checkout for its regression instances): bench/tools/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=3 warmup=1 tools="" out="" arms="baseline mimalloc jemalloc tcmalloc tbbmalloc"
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --arms) arms=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown argument: $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
# shellcheck source=../find_edashim.sh
source "$root/bench/find_edashim.sh"
find_edashim
workloads=${WORKLOADS:-}
[[ -z $workloads ]] || workloads=$(cd "$workloads" && pwd)
picorv32=${workloads:+$workloads/picorv32.v}
[[ -n $picorv32 && -f $picorv32 ]] || picorv32=
out=${out:-$root/bench/results/suite-$(date -u +%Y-%m-%d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What each tool needs installed, by Debian package; VPR and Yices are not packaged.
declare -A package=([yosys]=yosys [nextpnr-ice40]=nextpnr-ice40 [icepack]=fpga-icestorm
  [verilator_bin]=verilator [iverilog]=iverilog [vvp]=iverilog [z3]=z3 [cvc5]=cvc5
  )
all_tools="yosys nextpnr-ice40 icepack verilator_bin iverilog vvp z3 cvc5 vpr yices-smt2"
tools=${tools:-$all_tools}
vpr_bin=${VPR:-}
[[ -z $vpr_bin && -n ${VTR_ROOT:-} ]] && for c in "$VTR_ROOT/build/vpr/vpr" "$VTR_ROOT/vpr/vpr"; do
  [[ -x $c ]] && { vpr_bin=$c; break; }
done
# YICES: a yices-smt2 binary, an install prefix (bin/yices-smt2), or a built checkout (its
# build/*/bin/yices_smt2, as `make` leaves it before `make install` renames it).
yices_bin=${YICES:-} yices_src=
if [[ -n $yices_bin && -d $yices_bin ]]; then
  [[ -d $yices_bin/tests/regress ]] && yices_src=$yices_bin
  yices_bin=$(ls "$yices_bin"/bin/yices-smt2 "$yices_bin"/build/*/bin/yices-smt2 "$yices_bin"/build/*/bin/yices_smt2 2> /dev/null | head -1 || true)
fi
yices_src=${YICES_SRC:-$yices_src}

present=()
for t in $tools; do
  case $t in
    vpr) [[ -n $vpr_bin && -n ${VTR_ROOT:-} ]] && present+=(vpr) ||
      echo "skipping vpr: not built; set VTR_ROOT to a VTR checkout with vpr built (bench/tools/README.md)" >&2 ;;
    yices-smt2) [[ -n $yices_bin && -x $yices_bin ]] && present+=(yices-smt2) ||
      echo "skipping yices-smt2: set YICES to a yices-smt2 binary or a built Yices checkout (bench/tools/README.md)" >&2 ;;
    *) if command -v "$t" > /dev/null; then present+=("$t"); else
        echo "skipping $t: not installed (apt-get install ${package[$t]:-$t})" >&2; fi ;;
  esac
done
[[ -n $picorv32 ]] || echo "WORKLOADS not set or without picorv32.v: the flow runs on the bundled counter only" >&2

cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
machine="$(date -u +%Y-%m-%d), CPU $cpu ($(nproc) cores), Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
# PIN_CPU=1: every bench (and so every measured run) on that CPU alone, so that other work on the
# machine can be kept to the other CPUs; the pages say so.
pin=()
if [[ -n ${PIN_CPU:-} ]]; then
  pin=(taskset -c "$PIN_CPU")
  machine+=", measured runs pinned to CPU $PIN_CPU (taskset)"
fi
arm_args=()
for a in $arms; do arm_args+=(-p "$a"); done
bench_arms=("${arm_args[@]}")  # the arms of the next bench_one (a tool may measure fewer)
# Each bench's JSON (every run's raw record) and Markdown are kept in OUT/data: the pages are
# made from them, and they are the evidence a reader can re-analyse.
data=$out/data
mkdir -p "$data"
rm -f "$data"/*.json "$data"/*.md
echo "tool workload json" > "$work/index"

# bench_one TOOL NAME DIR OUTPUTS [BENCH OPTIONS] -- COMMAND...: one edashim bench in DIR (the
# tool's outputs stay there), its Markdown and JSON kept for the tool's page and the summary.
# OUTPUTS: the files compared across runs and arms (comma list); stdout is compared too.
bench_one() {
  local tool=$1 name=$2 dir=$3 outputs=$4; shift 4
  local compare=(--compare-outputs)
  [[ -n $outputs ]] && compare=(--compare-outputs "$outputs")
  while [[ $1 != -- ]]; do compare+=("$1"); shift; done
  shift
  echo "== $tool: $name" >&2
  (cd "$dir" && ${pin[@]+"${pin[@]}"} "$edashim" bench "${bench_arms[@]}" -n "$runs" --warmup "$warmup" "${compare[@]}" \
      --export-markdown "$data/$tool.$name.md" --export-json "$data/$tool.$name.json" -- "$@") ||
    echo "   $tool $name: bench failed (status $?); see above" >&2
  [[ -f $data/$tool.$name.json ]] && echo "$tool $name $data/$tool.$name.json" >> "$work/index"
}
have() { [[ " ${present[*]} " == *" $1 "* ]]; }

# The published VPR allocator study's commands, as it ran them, so that our tables sit beside
# its: EArch.xml, -j1, every stage, the routing-resource graph written out (rr_graph.xml,
# compared across arms with the netlist, placement and routing). sqrt8 with VPR's channel-width
# search, clma at the fixed width 128; clma with the search takes about a minute a run, so it
# is opt-in (VPR_STUDY_SEARCH=1). VPR_STUDY=0 leaves all three out.
vpr_study() {
  local name=$1 bin=$2 dir=$3
  [[ ${VPR_STUDY:-1} == 0 ]] && return 0
  local earch=$VTR_ROOT/vtr_flow/arch/timing/EArch.xml blifs=$VTR_ROOT/vtr_flow/benchmarks/blif
  local study=(--pack --place --route --analysis --write_rr_graph rr_graph.xml -j1)
  if [[ ! -f $earch ]]; then
    echo "   $name: no $earch; the study's commands are left out" >&2
    return 0
  fi
  bench_one "$name" sqrt8_study "$dir" "sqrt8.net,sqrt8.place,sqrt8.route,rr_graph.xml" --no-compare-stdout -- \
    "$bin" "${study[@]}" "$earch" "$blifs/6/sqrt8.blif"
  bench_one "$name" clma_w128_study "$dir" "clma.net,clma.place,clma.route,rr_graph.xml" --no-compare-stdout -- \
    "$bin" "${study[@]}" --route_chan_width 128 "$earch" "$blifs/clma.blif"
  if [[ ${VPR_STUDY_SEARCH:-0} == 1 ]]; then
    bench_one "$name" clma_search_study "$dir" "clma.net,clma.place,clma.route,rr_graph.xml" --no-compare-stdout -- \
      "$bin" "${study[@]}" "$earch" "$blifs/clma.blif"
  else
    echo "   $name: clma with the channel-width search left out (about a minute a run; VPR_STUDY_SEARCH=1 runs it)" >&2
  fi
}

# Yices on its own regression instances (QF_BV, solved by bit-blasting: the published 2x) and on
# the problem a formal flow gives it: yosys-smtbmc's bounded check of PicoRV32's own FORMAL
# properties, dumped once (by yosys-smtbmc driving this yices) and replayed as one incremental
# SMT-LIB 2 script, so the measurement is the solver's alone.
#   Each instance runs as `yices-smt2 FILE.smt2`, by Yices' default solver, as in every table so
# far. Yices' own regression passes FILE.smt2.options too (bin_eventlogadm_vc331184's is
# --mcsat, which a build without libpoly and CUDD refuses); the suite does not, and says so.
yices_workloads() {
  local d=$1 f
  if [[ -n $yices_src ]]; then
    for f in ${YICES_REGRESS:-mcsat/bv/bin_eventlogadm_vc331184 coverage/smtlib/QF_BV/brummayerbiere/nlzbe128 \
        coverage/smtlib/QF_BV/bruttomesso/lfsr/lfsr_002_095_128}; do
      [[ -f $yices_src/tests/regress/$f.smt2.options ]] &&
        echo "   yices-smt2 regress_${f##*/}: run without its .options ($(< "$yices_src/tests/regress/$f.smt2.options")), by the default solver" >&2
      bench_one yices-smt2 "regress_${f##*/}" "$d" "" -- "$yices_bin" "$yices_src/tests/regress/$f.smt2"
    done
  else
    echo "   yices-smt2: no Yices checkout (YICES=checkout or YICES_SRC=checkout): its regression instances are skipped" >&2
  fi
  if [[ -n $picorv32 ]] && command -v yosys-smtbmc > /dev/null; then
    local depth=${YICES_BMC_DEPTH:-20}
    EDASHIM=off yosys -q -p "read_verilog -formal $picorv32; prep -top picorv32; async2sync; dffunmap; write_smt2 -wires $d/picorv32.smt2"
    EDASHIM=off PATH="$(dirname "$yices_bin"):$PATH" yosys-smtbmc -s yices -t "$depth" --dump-smt2 "$d/bmc.smt2" "$d/picorv32.smt2" > /dev/null
    bench_one yices-smt2 "smtbmc_picorv32_bmc$depth" "$d" "" -- "$yices_bin" --incremental bmc.smt2
  fi
}

# Inputs made once, by the plain tools, outside the measurement.
soc_dir=$work/soc; mkdir -p "$soc_dir"
if [[ -n $picorv32 ]]; then
  soc_top=picorv32_soc soc_src="$picorv32 $root/examples/ice40/picorv32_soc.v"
else
  soc_top=counter soc_src="$root/examples/counter/counter.v"
fi
pcf=$root/examples/ice40/$soc_top.pcf
if have nextpnr-ice40 || have icepack; then
  EDASHIM=off make -s -C "$soc_dir" -f "$root/examples/ice40/Makefile" DESIGN="${soc_src%% *}" OUT=. > /dev/null
fi

for t in "${present[@]}"; do
  d=$work/run-$t; mkdir -p "$d"
  case $t in
    yosys)
      bench_one yosys synth_ice40_$soc_top "$d" net.json -- \
        yosys -q -p "synth_ice40 -top $soc_top -json net.json" $soc_src
      if [[ -n $workloads && -f $workloads/epfl_bar.v ]]; then
        bench_one yosys synth_abc_epfl_bar "$d" net.v -- \
          yosys -q -p "read_verilog $workloads/epfl_bar.v; synth -top top; abc; write_verilog -noattr net.v"
      fi ;;
    nextpnr-ice40)
      bench_one nextpnr-ice40 pnr_hx8k_$soc_top "$d" out.asc -- \
        nextpnr-ice40 -q --hx8k --package ct256 --seed 1 --json "$soc_dir/$soc_top.json" --pcf "$pcf" --asc out.asc ;;
    icepack)
      bench_one icepack pack_$soc_top "$d" out.bin -- icepack "$soc_dir/$soc_top.asc" out.bin ;;
    verilator_bin)
      # verilator (a Perl wrapper) execs verilator_bin, which is what runs and what edashim links.
      if [[ -n $picorv32 ]]; then
        bench_one verilator_bin lint_picorv32 "$d" "" -- verilator_bin --lint-only -Wno-fatal -Wno-lint -Wno-style "$picorv32"
        # The generated files with fixed names (the DepSet_h* names hash their content).
        bench_one verilator_bin cc_picorv32 "$d" obj/Vpicorv32.h,obj/Vpicorv32__Syms.cpp,obj/Vpicorv32___024root.h,obj/Vpicorv32___024root__Slow.cpp -- \
          verilator_bin --cc -Wno-fatal -Wno-lint -Wno-style --Mdir obj "$picorv32"
      else
        bench_one verilator_bin cc_counter "$d" obj/Vcounter.cpp -- \
          verilator_bin --cc -Wno-fatal --Mdir obj "$root/examples/counter/counter.v"
      fi ;;
    iverilog)
      # soc.vvp is not compared: its labels are heap addresses (L_0x55...), different in every
      # run under any allocator (ASLR). The vvp workload checks what it compiles to simulates alike.
      [[ -n $picorv32 ]] && bench_one iverilog compile_picorv32_soc "$d" "" -- iverilog -o soc.vvp \
        "$picorv32" "$root/examples/ice40/picorv32_soc.v" "$root/examples/ice40/picorv32_soc_tb.v" ;;
    vvp)
      if [[ -n $picorv32 ]]; then
        EDASHIM=off iverilog -o "$d/soc.vvp" "$picorv32" "$root/examples/ice40/picorv32_soc.v" "$root/examples/ice40/picorv32_soc_tb.v"
        bench_one vvp sim_picorv32_soc_200k "$d" "" -- vvp -n soc.vvp +cycles=200000
      fi ;;
    z3 | cvc5 | yices-smt2)
      bin=$t; [[ $t == yices-smt2 ]] && bin=$yices_bin
      for f in "$here"/smt/*.smt2; do
        # cvc5 bit-blasts square_of_sum in ~10 s, z3 rewrites it away; both are kept as they are.
        bench_one "$t" "$(basename "$f" .smt2)" "$d" "" -- "$bin" "$f"
      done
      [[ $t == yices-smt2 ]] && yices_workloads "$d" ;;
    vpr)
      arch=$VTR_ROOT/vtr_flow/arch/timing/k6_frac_N10_mem32K_40nm.xml
      # Two baselines. A VPR built with TBB links libtbbmalloc_proxy.so.2, so its own malloc is
      # TBBmalloc: that binary as built is what VTR users run ("vpr": baseline = TBBmalloc, and
      # a tbbmalloc arm would only repeat it). A copy with the proxy's DT_NEEDED removed, made
      # here for the measurement only, is the glibc baseline ("vpr-glibc", every arm).
      vpr_runs=("vpr $vpr_bin")
      if readelf -d "$vpr_bin" 2> /dev/null | grep -q 'NEEDED.*libtbbmalloc_proxy'; then
        if command -v patchelf > /dev/null; then
          cp "$vpr_bin" "$work/vpr-glibc"
          patchelf --remove-needed libtbbmalloc_proxy.so.2 "$work/vpr-glibc"
          vpr_runs+=("vpr-glibc $work/vpr-glibc")
        else
          echo "   vpr: links libtbbmalloc_proxy.so.2; its glibc baseline needs patchelf (apt-get install patchelf)" >&2
        fi
      fi
      for run in "${vpr_runs[@]}"; do
        name=${run%% *} bin=${run#* }
        bench_arms=("${arm_args[@]}")
        if [[ $name == vpr && ${#vpr_runs[@]} -gt 1 ]]; then
          bench_arms=()
          for a in $arms; do [[ $a == tbbmalloc ]] || bench_arms+=(-p "$a"); done
        fi
        # Circuits by path under vtr_flow/benchmarks/blif without .blif (tseng, 2/alu4, ...).
        for c in ${VPR_CIRCUITS:-tseng frisc}; do
          blif=$VTR_ROOT/vtr_flow/benchmarks/blif/$c.blif b=${c##*/}
          bench_one "$name" "${b}_w100" "$d" "$b.net,$b.place,$b.route" --no-compare-stdout -- \
            "$bin" "$arch" "$blif" --route_chan_width 100
          bench_one "$name" "${b}_search" "$d" "$b.net,$b.place,$b.route" --no-compare-stdout -- \
            "$bin" "$arch" "$blif"
        done
        vpr_study "$name" "$bin" "$d"
      done
      bench_arms=("${arm_args[@]}") ;;
  esac
done

# One page per tool, then the summary across tools.
# The command as the pages show it: what chose the workloads too, so that it can be run again.
command="bench/suite/run.sh -n $runs --warmup $warmup --tools \"${tools}\" --arms \"$arms\""
for v in VPR_CIRCUITS VPR_STUDY VPR_STUDY_SEARCH YICES_REGRESS YICES_BMC_DEPTH PIN_CPU; do
  if [[ -n ${!v:-} ]]; then command="$v=\"${!v}\" $command"; fi
done
python3 "$here/pages.py" "$work/index" "$out" "$machine" "$command" "$root" "$workloads" "$work"
echo "written: $out" >&2
