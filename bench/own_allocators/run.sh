#!/usr/bin/env bash
# edashim's own allocator builds (install/allocators) against the system's build of the same
# allocator (issue 48): the open-flow suite (bench/suite/run.sh) with two arms in the same
# rounds, the system's build first (the reference) and edashim's, once per allocator. No loss
# means the ratio's confidence interval includes 1 or lies below it. Not a test: it wants a
# quiet machine and takes about 5 minutes per allocator at -n 8 on 2 cores.
#
#   bench/own_allocators/run.sh [-n RUNS] [--allocators "jemalloc mimalloc tcmalloc"] [--tools "yosys z3"] [--out DIR]
#
# The system's build is the one the loader finds by soname (ldconfig's cache), named in an arm
# profile written here; edashim's is what `allocator = "NAME"` preloads when edashim was built
# with its own (the pages' run lines say `allocator.build`). WORKLOADS, VTR_ROOT, YICES and the
# rest are bench/suite/run.sh's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=8 allocators="jemalloc mimalloc tcmalloc" tools="yosys z3" out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --allocators) allocators=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown argument: $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
out=${out:-$root/bench/results/own-allocators-$(date -u +%Y-%m-%d)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A soname=([jemalloc]=libjemalloc.so.2 [mimalloc]=libmimalloc.so.2 [tcmalloc]=libtcmalloc_minimal.so.4)
for a in $allocators; do
  [[ -n ${soname[$a]:-} ]] || { echo "no soname known for $a (expected jemalloc, mimalloc or tcmalloc)" >&2; exit 2; }
  lib=$(/sbin/ldconfig -p | awk -v s="${soname[$a]}" '$1 == s && /x86-64|x86_64|AArch64|aarch64/ {print $NF; exit}')
  [[ -n $lib ]] || { echo "the system has no ${soname[$a]} (apt-get install the $a package): nothing to compare with" >&2; exit 2; }
  printf '# Bench arm: the system'"'"'s build of %s (%s), against edashim'"'"'s own.\nallocator = "%s"\n' "$a" "$lib" "$lib" \
    > "$work/$a-system.toml"
  "$root/bench/suite/run.sh" -n "$runs" --tools "$tools" --arms "$work/$a-system.toml $a" --out "$out/$a"
done
echo "written: $out" >&2
