#!/usr/bin/env bash
# One build for every node of a farm: the probe library, preloaded into every process of a tool,
# must load on the oldest glibc edashim supports (2.28: RHEL 8), so it may need no symbol version
# newer than GLIBC_2.28, neither on a symbol (objdump -T) nor among the versions ld.so checks
# before anything runs (objdump -p, "Version References"). edashim and edashim-cli are static:
# no interpreter, no needed library, so nothing of the build machine's glibc is asked for.
# Usage: glibc_floor.sh PROBE_LIBRARY [STATIC_PROGRAM...]
set -uo pipefail
probe=${1:?path to libedashim_probe.so}
shift
floor=2.28
failed=0

# Prints the GLIBC_x.y[.z] versions of its input newer than the floor, one a line.
newer_than_floor() {
  grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' | sort -u | while read -r v; do
    n=${v#GLIBC_}
    [ "$(printf '%s\n%s\n' "$n" "$floor" | sort -V | tail -1)" = "$floor" ] || echo "$v"
  done
}

[ -f "$probe" ] || { echo "FAIL: no probe library at $probe"; exit 1; }
symbols=$(objdump -T "$probe") || { echo "FAIL: objdump -T $probe"; exit 1; }
refs=$(objdump -p "$probe") || { echo "FAIL: objdump -p $probe"; exit 1; }
bad=$(newer_than_floor <<<"$symbols")
if [ -n "$bad" ]; then
  echo "FAIL: $probe binds symbols of glibc newer than $floor, so it cannot load on RHEL 8 or Debian 11:"
  for v in $bad; do grep -F "$v" <<<"$symbols" | awk '{print "  " $NF " @ " $(NF-1)}'; done
  echo "  (shim/probe/glibc_compat.h binds the older versions; a new call needs an entry there)"
  failed=1
fi
bad=$(sed -n '/Version References/,$p' <<<"$refs" | newer_than_floor)
if [ -n "$bad" ]; then
  echo "FAIL: $probe requires versions ld.so checks at load time: $(echo $bad)"
  failed=1
fi
# On glibc before 2.34 dlsym and dladdr1 are libdl's: it must be loaded with the probe.
if grep -qE ' (dlsym|dladdr1)$' <<<"$symbols" && ! grep -qE 'NEEDED +libdl\.so\.2' <<<"$refs"; then
  echo "FAIL: $probe calls dlsym/dladdr1 but does not need libdl.so.2, where glibc before 2.34 has them"
  failed=1
fi

for prog in "$@"; do
  headers=$(objdump -p "$prog") || { echo "FAIL: objdump -p $prog"; failed=1; continue; }
  if grep -qE '^ +NEEDED|INTERP' <<<"$headers" || readelf -l "$prog" 2>/dev/null | grep -q 'Requesting program interpreter'; then
    echo "FAIL: $prog is dynamically linked; it must stay static to run on any glibc"
    failed=1
  fi
done
[ "$failed" = 0 ] && echo "ok: $probe needs nothing newer than GLIBC_$floor; static: ${*:-none checked}"
exit "$failed"
