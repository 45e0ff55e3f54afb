#!/usr/bin/env bash
# The mutation check (issue 27; .ci/run runs it last): plants each small bug of tests/mutants/list.sh, one
# at a time, in a scratch copy of the source tree, rebuilds only what the named tests need, runs
# only those tests, and reports the bugs no test caught (survivors). A planted bug is exact text
# replaced by other text: an entry whose text is no longer in its file (moved, reworded) is
# reported "not found", never counted as caught, so the list cannot silently go stale.
#
#   tests/mutants/run.sh [--scratch DIR] [--keep] [--shards N] [ID...]
#   tests/mutants/run.sh --check     (only: is each entry's text in this tree, once?)
#
# --scratch DIR: where the copies and their builds live (created if missing, reused if it holds
#   them: a second run rebuilds only what changed). Default: a new directory under
#   ${TMPDIR:-/tmp}, removed at the end unless --keep.
# --shards N (default $MUTANTS_SHARDS, else 2): N copies, each planting every Nth entry, side by
#   side. One mutant is mostly one compile, one link and a test that waits on its tool: a single
#   copy left one of CI's two cores idle most of the time.
# ID...: only these entries (default: all). Exit status: 0 when every entry was caught, 1 when
# any survived or was not found, 2 when a copy could not be set up or built.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
scratch="" keep=0 check=0 only=() shards=${MUTANTS_SHARDS:-2} shard=""
while (($#)); do
  case $1 in
    --scratch) scratch=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --check) check=1; shift ;;
    --shards) shards=$2; shift 2 ;;
    --shard) shard=$2; shift 2 ;;  # K/N: this copy's share (run.sh calls itself so)
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1 (expected --scratch DIR, --keep, --shards N or entry ids)" >&2; exit 2 ;;
    *) only+=("$1"); shift ;;
  esac
done
[[ $shards =~ ^[1-9][0-9]?$ ]] || { echo "run.sh: --shards $shards: expected a number from 1 to 99" >&2; exit 2; }
ids=() files=() originals=() replacements=() patterns=()
# One entry: ID FILE ORIGINAL REPLACEMENT PATTERN (a ctest -R regex naming the tests that must
# catch it). Called by list.sh.
mutant() {
  if (($# != 5)); then echo "run.sh: mutant $1: expected 5 fields, got $#" >&2; exit 2; fi
  ids+=("$1") files+=("$2") originals+=("$3") replacements+=("$4") patterns+=("$5")
}
source "$here/list.sh"

# Where an entry's original text is in `text` (the file's content): "" once, else why not.
placement() {
  local text=$1 orig=$2 rest
  rest=${text#*"$orig"}
  if [[ $rest == "$text" ]]; then echo "the original text is not in the file"
  elif [[ $rest == *"$orig"* ]]; then echo "the original text is in the file more than once"
  fi
}
read_text() { text=$(cat -- "$1"; printf x); text=${text%x}; }
if ((check)); then
  # One python for every entry: bash's pattern removal over a whole file is quadratic (30 s).
  for i in "${!ids[@]}"; do printf '%s\0%s\0%s\0' "${ids[i]}" "${files[i]}" "${originals[i]}"; done |
    python3 -c '
import os, sys
parts = sys.stdin.buffer.read().split(b"\0")[:-1]
src, bad, n = sys.argv[1], 0, len(parts) // 3
for i in range(n):
    id_, file, orig = (p.decode() for p in parts[3 * i:3 * i + 3])
    path = os.path.join(src, file)
    if not os.path.isfile(path): why = "no file " + file
    else:
        count = open(path, encoding="utf-8", errors="surrogateescape").read().count(orig)
        why = "" if count == 1 else "the original text is not in the file" if count == 0 else "the original text is in the file more than once"
    if why: print(f"[{id_}] {file}: {why}"); bad = 1
print(f"{n} entries, each text found once") if not bad else None
sys.exit(bad)' "$src"
  exit
fi

made_scratch=0
[[ -n $scratch ]] && scratch=$(realpath -m -- "$scratch")
if [[ -z $scratch ]]; then
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/edashim-mutants.XXXXXX") || exit 2
  made_scratch=1
fi

# Side by side: this run starts one run.sh a shard, each in its own copy (DIR/shardK), and sums
# what they found. Their output is shown whole, one shard after the other, once all have ended.
if [[ -z $shard ]] && ((shards > 1)); then
  mkdir -p "$scratch" || exit 2
  pids=()
  for ((k = 0; k < shards; k++)); do
    bash "$0" --scratch "$scratch/shard$k" --shard "$k/$shards" ${only[@]+"${only[@]}"} >"$scratch/shard$k.out" 2>&1 &
    pids+=($!)
  done
  worst=0 sum=(0 0 0 0)
  # Each shard's summary is summed below; the log each names goes with the scratch unless kept.
  drop=(-e '^$' -e '^[0-9]* mutants: ')
  ((made_scratch && !keep)) && drop+=(-e '^(log: ')
  for ((k = 0; k < shards; k++)); do
    wait "${pids[k]}"; rc=$?
    ((rc > worst)) && worst=$rc
    echo "--- shard $k of $shards (exit $rc)"
    grep -v "${drop[@]}" "$scratch/shard$k.out"
    read -r -a n < <(sed -n 's/^[0-9]* mutants: \([0-9]*\) caught, \([0-9]*\) survived, \([0-9]*\) not found, \([0-9]*\) broken entries$/\1 \2 \3 \4/p' "$scratch/shard$k.out")
    ((${#n[@]} == 4)) || { ((worst < 2)) && worst=2; n=(0 0 0 0); }
    for j in 0 1 2 3; do sum[j]=$((sum[j] + n[j])); done
  done
  echo
  echo "$((sum[0] + sum[1] + sum[2] + sum[3])) mutants: ${sum[0]} caught, ${sum[1]} survived, ${sum[2]} not found, ${sum[3]} broken entries"
  ((made_scratch && !keep)) && rm -rf -- "$scratch"
  exit "$worst"
fi
shard_k=0 shard_n=1 lock=$scratch/shards.lock
[[ -n $shard ]] && { shard_k=${shard%/*} shard_n=${shard#*/} lock=$(dirname -- "$scratch")/shards.lock; }
copy=$scratch/src
build=$copy/build
log=$scratch/mutants.log
cleanup() { ((made_scratch && !keep)) && rm -rf -- "$scratch"; }
trap cleanup EXIT

# The copy: tracked and untracked-but-not-ignored files of the tree as they are now (the
# uncommitted edits too), never the build directories. Files the copy has and the tree no
# longer has are left: harmless for a build that lists its sources. Extracted with the time of
# the extraction (--touch): with the files' own times, a file edited before a reused copy's last
# build looked older than its object, was not rebuilt, and its new tests were not there.
mkdir -p "$copy" || exit 2
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$copy" --touch -xpf - || {
  echo "run.sh: cannot copy $src to $copy" >&2
  exit 2
}
# The same relative layout as a checkout's build/ (CCACHE_BASEDIR makes ccache's keys relative):
# the first build of a copy is mostly cache hits.
export CCACHE_BASEDIR=$scratch
jobs=${MUTANTS_JOBS:-2}
cmake -S "$copy" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache >"$log" 2>&1 || { echo "run.sh: configure failed, see $log" >&2; exit 2; }
# What every e2e suite of the list runs besides edashim: its helper programs.
e2e_targets=(edashim edashim-cli edashim_probe e2e_helpers)
# edashim's own allocators where this build has them (install/allocators; the copy's build takes
# them from the cache the first build filled): the e2e suites' runs preload them.
grep -q '^own_allocators:' "$build/Makefile" 2>/dev/null && e2e_targets+=(own_allocators)
echo "building the copy in $build ..."
nice cmake --build "$build" -j"$jobs" --target unit_tests "${e2e_targets[@]}" >>"$log" 2>&1 ||
  { echo "run.sh: the unmutated copy does not build, see $log" >&2; exit 2; }

# Entry i is this copy's when i is K modulo N; of those, the ones named (all when none is).
wanted() {
  (($2 % shard_n == shard_k)) || return 1
  ((${#only[@]} == 0)) && return 0
  local w
  for w in "${only[@]}"; do [[ $w == "$1" ]] && return 0; done
  return 1
}

# The named tests, stopping at the first failure. A failing e2e test keeps its sandbox for
# inspection and names it: this mutant's failures are expected, so those (by exact path) go.
# Tests ctest runs one at a time (RUN_SERIAL: each Slurm test starts a cluster of its own) hold
# the shards' lock alone; the others share it.
run_tests() {
  local out=$scratch/ctest.out rc kept how=-s
  ctest --test-dir "$build" -N -R "$1" --show-only=json-v1 2>/dev/null | grep -q '"name" *: *"RUN_SERIAL"' && how=-x
  flock "$how" "$lock" \
    ctest --test-dir "$build" -R "$1" --stop-on-failure --output-on-failure >"$out" 2>&1
  rc=$?
  cat "$out" >>"$log"
  while read -r kept; do
    [[ $kept == /tmp/edashim-e2e-* && -d $kept ]] && rm -rf -- "$kept"
  done < <(sed -n 's/.*; sandbox kept at \(.*\))$/\1/p' "$out")
  rm -f -- "$out"
  return $rc
}

caught=() survived=() missing=() broken=()
for i in "${!ids[@]}"; do
  id=${ids[i]} file=$copy/${files[i]} orig=${originals[i]} repl=${replacements[i]} pattern=${patterns[i]}
  wanted "$id" "$i" || continue
  if [[ ! -f $file ]]; then
    missing+=("$id (no file ${files[i]})")
    echo "[$id] not found: no file ${files[i]}"
    continue
  fi
  read_text "$file"
  why=$(placement "$text" "$orig")
  if [[ -n $why ]]; then
    missing+=("$id (${files[i]}: $why)")
    echo "[$id] not found: ${files[i]}: $why"
    continue
  fi
  rest=${text#*"$orig"}
  printf '%s' "${text%%"$orig"*}$repl$rest" >"$file"
  targets=()
  [[ $pattern == *unit:* ]] && targets+=(unit_tests)
  [[ $pattern == *e2e* ]] && targets+=("${e2e_targets[@]}")
  ((${#targets[@]})) || targets=(unit_tests "${e2e_targets[@]}")
  echo "== $id: ${files[i]}" >>"$log"
  if ! nice cmake --build "$build" -j"$jobs" --target "${targets[@]}" >>"$log" 2>&1; then
    # A mutant that does not compile tests nothing: the entry needs fixing.
    broken+=("$id")
    echo "[$id] does not build (see $log): fix the entry"
  else
    count=$(ctest --test-dir "$build" -N -R "$pattern" | sed -n 's/^Total Tests: //p')
    if [[ ${count:-0} == 0 ]]; then
      broken+=("$id")
      echo "[$id] the pattern '$pattern' names no test: fix the entry"
    elif run_tests "$pattern"; then
      survived+=("$id")
      echo "[$id] SURVIVED: ${files[i]}, no test of '$pattern' failed"
    else
      caught+=("$id")
      echo "[$id] caught"
    fi
  fi
  printf '%s' "$text" >"$file"
done
# The copy as it was, so that a later --scratch run starts from the unmutated tree.
nice cmake --build "$build" -j"$jobs" --target unit_tests "${e2e_targets[@]}" >>"$log" 2>&1

total=$((${#caught[@]} + ${#survived[@]} + ${#missing[@]} + ${#broken[@]}))
echo
echo "$total mutants: ${#caught[@]} caught, ${#survived[@]} survived, ${#missing[@]} not found, ${#broken[@]} broken entries"
for s in "${survived[@]}"; do echo "  survived: $s"; done
for s in "${missing[@]}"; do echo "  not found: $s"; done
for s in "${broken[@]}"; do echo "  broken: $s"; done
((keep || !made_scratch)) && echo "(log: $log)"
((${#survived[@]} + ${#missing[@]} + ${#broken[@]} == 0))
