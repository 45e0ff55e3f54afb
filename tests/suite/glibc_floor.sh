#!/usr/bin/env bash
# One build for every node of a farm: the probe library, preloaded into every process of a tool,
# must load on the oldest glibc edashim supports (2.28: RHEL 8), so it may need no symbol version
# newer than GLIBC_2.28, neither on a symbol (objdump -T) nor among the versions ld.so checks
# before anything runs (objdump -p, "Version References"); so must edashim's own allocator builds,
# preloaded as widely, which must also load nothing but glibc. edashim and edashim-cli are static:
# no interpreter, no needed library, so nothing of the build machine's glibc is asked for.
# A build for a newer glibc, in alloc/glibc-X.Y/ (a run takes it only where the tool's libc is
# that new), is held to GLIBC_X.Y instead, and loads libc alone: no libpthread or libdl stub.
# Usage: glibc_floor.sh PROBE_LIBRARY [STATIC_PROGRAM...]
set -uo pipefail
probe=${1:?path to libedashim_probe.so}
shift
failed=0

# Prints the GLIBC_x.y[.z] versions of its input newer than the floor ($floor), one a line.
newer_than_floor() {
  grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' | sort -u | while read -r v; do
    n=${v#GLIBC_}
    [ "$(printf '%s\n%s\n' "$n" "$floor" | sort -V | tail -1)" = "$floor" ] || echo "$v"
  done
}

# check_library LIB FIX [FLOOR]: LIB needs no version above FLOOR (default 2.28), finds the
# functions older glibc keeps in libdl and libpthread there, and loads nothing but glibc's own
# libraries with it (a newer floor's build: libc alone).
check_library() {
  local lib=$1 fix=$2 floor=${3:-2.28} symbols refs bad extra
  [ -f "$lib" ] || { echo "FAIL: no library at $lib"; failed=1; return; }
  symbols=$(objdump -T "$lib") || { echo "FAIL: objdump -T $lib"; failed=1; return; }
  refs=$(objdump -p "$lib") || { echo "FAIL: objdump -p $lib"; failed=1; return; }
  bad=$(newer_than_floor <<<"$symbols")
  if [ -n "$bad" ]; then
    echo "FAIL: $lib binds symbols of glibc newer than $floor, so it cannot load on every node of that glibc (2.28: RHEL 8, Debian 11):"
    for v in $bad; do grep -F "$v" <<<"$symbols" | awk '{print "  " $NF " @ " $(NF-1)}'; done
    echo "  ($fix)"
    failed=1
  fi
  bad=$(sed -n '/Version References/,$p' <<<"$refs" | newer_than_floor)
  if [ -n "$bad" ]; then
    echo "FAIL: $lib requires versions ld.so checks at load time: $(echo $bad)"
    failed=1
  fi
  # On glibc before 2.34 dlsym and dladdr1 are libdl's, the pthread functions libpthread's: they
  # must be loaded with the library.
  if [ "$floor" = 2.28 ] && grep -qE '\*UND\*.* (dlsym|dladdr1)$' <<<"$symbols" && ! grep -qE 'NEEDED +libdl\.so\.2' <<<"$refs"; then
    echo "FAIL: $lib calls dlsym/dladdr1 but does not need libdl.so.2, where glibc before 2.34 has them"
    failed=1
  fi
  if [ "$floor" = 2.28 ] && grep -qE '\*UND\*.* pthread_(create|key_create|setspecific)$' <<<"$symbols" &&
     ! grep -qE 'NEEDED +libpthread\.so\.0' <<<"$refs"; then
    echo "FAIL: $lib calls pthread functions but does not need libpthread.so.0, where glibc before 2.34 has them"
    failed=1
  fi
  # glibc's own libraries; tcmalloc (C++, its libstdc++ part inside it) also libm (its log2)
  # and libgcc_s, GCC's unwinder, which every glibc system has (glibc's pthread_cancel loads
  # it), at a version RHEL 8's (GCC 8) has: GCC_7.0.0 at most. As install/allocators/build.sh.
  local allowed='libc\.so\.6|libpthread\.so\.0|libdl\.so\.2|ld-linux-[a-z0-9-]+\.so\.[0-9]+'
  [[ $lib == */libtcmalloc_minimal.so.4 ]] && allowed+='|libm\.so\.6|libgcc_s\.so\.1'
  [ "$floor" = 2.28 ] || allowed='libc\.so\.6'
  extra=$(awk '$1 == "NEEDED" { print $2 }' <<<"$refs" | grep -vxE "$allowed")
  if [ -n "$extra" ]; then
    echo "FAIL: $lib loads $(echo $extra) with it: into every process of a tool, on every node (only glibc's may be)"
    failed=1
  fi
  bad=$(grep -oE 'GCC_[0-9.]+' <<<"$symbols" | sort -uV | awk -F'[_.]' '$2 > 7' | tr '\n' ' ')
  if [ -n "$bad" ]; then
    echo "FAIL: $lib needs libgcc_s's $bad(above GCC_7.0.0, RHEL 8's)"
    failed=1
  fi
}

check_library "$probe" "shim/probe/glibc_compat.h binds the older versions; a new call needs an entry there"
# edashim's own allocator builds (install/allocators), beside the probe in a build tree.
own=()
for lib in "$(dirname "$probe")"/alloc/lib*.so*; do
  [ -f "$lib" ] && own+=("$lib") && check_library "$lib" "install/allocators/glibc_floor.h binds the older versions; a new call needs an entry there"
done
for lib in "$(dirname "$probe")"/alloc/glibc-*/lib*.so*; do
  [ -f "$lib" ] || continue
  newer=$(basename "$(dirname "$lib")")
  own+=("$lib") && check_library "$lib" "runs take a build in $newer/ where the tool's libc is that new: its directory must name the newest glibc it needs (install/allocators/build.sh)" "${newer#glibc-}"
done

for prog in "$@"; do
  headers=$(objdump -p "$prog") || { echo "FAIL: objdump -p $prog"; failed=1; continue; }
  if grep -qE '^ +NEEDED|INTERP' <<<"$headers" || readelf -l "$prog" 2>/dev/null | grep -q 'Requesting program interpreter'; then
    echo "FAIL: $prog is dynamically linked; it must stay static to run on any glibc"
    failed=1
  fi
done
[ "$failed" = 0 ] && echo "ok: $probe and edashim's allocators (${own[*]:-none in this build}) need nothing newer than GLIBC_2.28 (GLIBC_X.Y in glibc-X.Y/), and only glibc's libraries; static: ${*:-none checked}"
exit "$failed"
