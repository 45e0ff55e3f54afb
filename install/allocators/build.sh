#!/usr/bin/env bash
# build.sh SOURCES OUT [CACHE]: edashim's own builds of the allocators sources.txt pins, from
# their tarballs in SOURCES (fetch.sh puts them there), into OUT as the sonames a run preloads
# (libjemalloc.so.2, libmimalloc.so.2, libtcmalloc_minimal.so.4). CMake runs it
# (install/allocators/CMakeLists.txt).
#
# Built for one job: to be preloaded into every process of a tool, on any node of a farm.
# - glibc 2.28 and later: glibc_floor.h binds the old versions of the pthread functions and
#   dlsym, and libpthread and libdl are linked (empty on 2.34+, needed before); objdump then
#   checks that no symbol version above GLIBC_2.28 is left. A library that fails it is not kept.
# - Nothing but glibc loaded with them: jemalloc without its C++ part (--disable-cxx; Debian's
#   links libstdc++, libm and libgcc_s, which every child of a tool then loads and relocates)
#   and without heap profiling (--enable-prof needs libgcc's unwinder; profiling options are
#   restricted to trusted files anyway); tcmalloc with the part of libstdc++ it uses inside it
#   (below), and glibc's libm and libgcc_s. readelf checks the NEEDED entries.
# - Otherwise each upstream's defaults, which are what their authors measure: jemalloc's -O3
#   and its page size as Debian builds it for x86-64 (4 KiB, 2 MiB huge pages; 64 KiB pages on
#   other architectures, as Debian), MALLOC_CONF defaults untouched; mimalloc's release build
#   with malloc overridden, secure mode off (its guard pages and encoded free lists cost
#   speed and serve no purpose here). No debug information (-g0 after jemalloc's own -g3):
#   smaller libraries, faster builds.
# - A second jemalloc for glibc 2.34 and later, in glibc-2.34/ (the directory's name is the
#   floor, checked below and by tests/suite/glibc_floor.sh): built as for its own glibc, it
#   needs no libpthread or libdl, the two empty stubs the floor's build brings into every child
#   (about 0.1 ms of a child's start; docs/overhead.md). Runs choose it where the tool's libc has
#   GLIBC_2.34 (pipeline/preflight.cpp). Both are linked with -z noseparate-code: two mappings
#   instead of four (0.04 ms a child).
#
# CACHE: a directory of earlier builds, keyed by everything that makes them (sources.txt, this
# script, glibc_floor.h, libstdcxx_floor.c, the compilers): a build dir of the same tree (the
# sanitizer build, the mutation check's copy) copies instead of building again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sources=${1:?usage: build.sh SOURCES OUT [CACHE]}
out=${2:?usage: build.sh SOURCES OUT [CACHE]}
cache=${3:-}
cc=${CC:-cc} cxx=${CXX:-c++}
jobs=${EDASHIM_ALLOCATOR_JOBS:-2}
# The tools' flags are not the allocators': nothing of the calling build's environment.
unset CFLAGS CXXFLAGS CPPFLAGS LDFLAGS MAKEFLAGS
# The glibc-2.34 build is made only where the build machine's glibc is 2.34 or later.
lean_floor=2.34 lean=glibc-$lean_floor/libjemalloc.so.2
glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
[ "$(printf '%s\n' "$lean_floor" "$glibc" | sort -V | head -1)" = "$lean_floor" ] || lean=""
libs=(libjemalloc.so.2 $lean libmimalloc.so.2 libtcmalloc_minimal.so.4)

key=$( (cat "$here/sources.txt" "$0" "$here/glibc_floor.h" "$here/libstdcxx_floor.c"; "$cc" --version | head -1
  "$cxx" --version | head -1; uname -m; echo "$glibc") | sha256sum | cut -c1-16)
mkdir -p "$out"
# What is built here is preloaded into every process of every tool: a cache directory another
# user could write (EDASHIM_ALLOCATOR_CACHE pointed at a shared place) is not used at all.
ours() { [ -d "$1" ] && [ ! -L "$1" ] && [ "$(stat -c %u "$1")" = "$(id -u)" ] && [ -z "$(find "$1" -maxdepth 0 -perm /022)" ]; }
if [ -n "$cache" ] && { mkdir -p "$cache" 2>/dev/null; ! ours "$cache"; }; then
  echo "build.sh: not using $cache (not yours alone, or not a directory): building without a cache" >&2
  cache=""
fi
cached=${cache:+$cache/$key}
if [ -n "$cached" ] && ours "$cached" && [ -f "$cached/done" ]; then
  for l in "${libs[@]}"; do
    mkdir -p "$out/$(dirname "$l")" && cp -f -- "$cached/$l" "$out/$l.tmp" && mv -f -- "$out/$l.tmp" "$out/$l"
  done
  echo "edashim's allocators: ${libs[*]} from $cached"
  exit 0
fi

# The tarball of allocator NAME, checked again against its pin: fetch.sh checked it at configure
# time, and this runs later.
tarball() {
  local file sum
  read -r file sum < <(awk -v n="$1" '$1 == n { print $4, $5 }' "$here/sources.txt")
  echo "$sum  $sources/$file" | sha256sum -c --quiet - > /dev/null 2>&1 ||
    { echo "build.sh: $sources/$file is not the tarball sources.txt pins (SHA-256)" >&2; return 1; }
  echo "$sources/$file"
}
work=$(mktemp -d "${TMPDIR:-/tmp}/edashim-allocators.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
floor="-include $here/glibc_floor.h"
# By file name: -lpthread and -ldl would take the empty archives of glibc 2.34+.
link_old="-Wl,--no-as-needed -l:libpthread.so.0 -l:libdl.so.2 -Wl,--as-needed"

# Every symbol version at or below the library's floor (GLIBC_2.28, or the X.Y of a glibc-X.Y/
# directory), and nothing but glibc's libraries needed (for tcmalloc, libm and libgcc_s too; for a
# build of glibc-X.Y/, libc alone: tests/suite/glibc_floor.sh allows the same).
check() {
  local lib=$1 floor=2.28 over needed allowed='libc\.so\.6|libpthread\.so\.0|libdl\.so\.2|ld-linux.*'
  [[ $lib == */libtcmalloc_minimal.so.4 ]] && allowed+='|libm\.so\.6|libgcc_s\.so\.1'
  if [[ $lib =~ /glibc-([0-9]+)\.([0-9]+)/[^/]+$ ]]; then
    floor=${BASH_REMATCH[1]}.${BASH_REMATCH[2]} allowed='libc\.so\.6'
  fi
  over=$(objdump -T "$lib" | grep -oE 'GLIBC_[0-9.]+' | sort -uV |
    awk -F'[_.]' -v f="$floor" 'BEGIN { split(f, m, ".") } $2 > m[1] || ($2 == m[1] && $3 > m[2])' | tr '\n' ' ')
  [ -z "$over" ] || { echo "build.sh: $lib needs $over(above the GLIBC_$floor floor)" >&2; return 1; }
  needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
    { grep -vxE "$allowed" || true; } | tr '\n' ' ')
  [ -z "$needed" ] || { echo "build.sh: $lib needs $needed(only glibc's libraries may be loaded with it)" >&2; return 1; }
}

# jemalloc_in DIR CFLAGS LIBS: one build of jemalloc, in DIR/lib/libjemalloc.so.2.
jemalloc_in() {
  local src=$1 page=16
  mkdir -p "$src" && tar -C "$src" --strip-components=1 -xjf "$(tarball jemalloc)"
  [ "$(uname -m)" = x86_64 ] && page=12
  (cd "$src" && CC=$cc CFLAGS="$2" LIBS="$3" ./configure --disable-cxx --disable-prof \
     --disable-doc --with-lg-page=$page --with-lg-hugepage=21 > "$src.log" 2>&1 &&
   make -j"$jobs" build_lib_shared EXTRA_LDFLAGS=-Wl,-z,noseparate-code >> "$src.log" 2>&1) ||
    { tail -20 "$src.log" >&2; echo "build.sh: jemalloc failed to build (log above)" >&2; return 1; }
}

build_jemalloc() {
  jemalloc_in "$work/jemalloc" "-O3 -funroll-loops -g0 $floor" "$link_old"
  cp "$work/jemalloc/lib/libjemalloc.so.2" "$work/libjemalloc.so.2"
  [ -n "$lean" ] || return 0
  jemalloc_in "$work/jemalloc-lean" "-O3 -funroll-loops -g0" ""
  mkdir -p "$work/$(dirname "$lean")" && cp "$work/jemalloc-lean/lib/libjemalloc.so.2" "$work/$lean"
}

build_mimalloc() {
  local src=$work/mimalloc
  mkdir -p "$src" && tar -C "$src" --strip-components=1 -xJf "$(tarball mimalloc)"
  (cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" -DMI_BUILD_STATIC=OFF \
     -DMI_BUILD_OBJECT=OFF -DMI_BUILD_TESTS=OFF -DMI_OVERRIDE=ON -DMI_SECURE=OFF -DCMAKE_C_FLAGS="$floor" \
     -DCMAKE_SHARED_LINKER_FLAGS="$link_old" > "$work/mimalloc.log" 2>&1 &&
   cmake --build "$src/build" -j"$jobs" >> "$work/mimalloc.log" 2>&1) ||
    { tail -20 "$work/mimalloc.log" >&2; echo "build.sh: mimalloc failed to build (log above)" >&2; return 1; }
  cp -L "$src/build/libmimalloc.so.2" "$work/libmimalloc.so.2"
}

# gperftools' tcmalloc (the minimal library: no heap profiler) is C++. The part of libstdc++ it
# uses is linked into it statically and hidden (--exclude-libs), so that no second C++ runtime
# is put into a C++ tool and none into a C one; --gc-sections drops what of that part it never
# calls (std::random_device, which wants glibc 2.36's arc4random), and libstdcxx_floor.c defines
# what the rest asks of a glibc newer than the floor. libgcc_s stays shared: its unwinder, as
# built for glibc 2.35+, finds frames only through _dl_find_object. Upstream's CMake build
# (autotools' needs autoreconf), its SOVERSION (the full 9.10.5, a slip of 2.10's CMake file)
# set to Debian's 4; upstream's -O2, as Debian builds it.
build_tcmalloc() {
  local src=$work/gperftools
  mkdir -p "$src" && tar -C "$src" --strip-components=1 -xzf "$(tarball tcmalloc)"
  sed -i 's/^set(TCMALLOC_SO_VERSION 9\.10\.5)$/set(TCMALLOC_SO_VERSION 4)/' "$src/CMakeLists.txt"
  "$cc" -c -fPIC -O2 -o "$work/libstdcxx_floor.o" "$here/libstdcxx_floor.c"
  (cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
     -Dgperftools_build_minimal=ON -Dgperftools_build_benchmark=OFF -DBUILD_TESTING=OFF -DGPERFTOOLS_BUILD_STATIC=OFF \
     -Dgperftools_enable_libunwind=OFF -Dgperftools_enable_stacktrace_via_backtrace=OFF \
     -DCMAKE_C_FLAGS="-O2 -g0 $floor" -DCMAKE_CXX_FLAGS="-O2 -g0 $floor" \
     -DCMAKE_SHARED_LINKER_FLAGS="-static-libstdc++ -Wl,--exclude-libs,ALL -Wl,--gc-sections $work/libstdcxx_floor.o $link_old" \
     > "$work/tcmalloc.log" 2>&1 &&
   cmake --build "$src/build" -j"$jobs" --target tcmalloc_minimal >> "$work/tcmalloc.log" 2>&1) ||
    { tail -20 "$work/tcmalloc.log" >&2; echo "build.sh: tcmalloc failed to build (log above)" >&2; return 1; }
  cp -L "$src/build/libtcmalloc_minimal.so.4" "$work/libtcmalloc_minimal.so.4"
}

start=$SECONDS
build_jemalloc
build_mimalloc
build_tcmalloc
for l in "${libs[@]}"; do
  strip --strip-unneeded "$work/$l"
  check "$work/$l"
done
for l in "${libs[@]}"; do
  mkdir -p "$out/$(dirname "$l")" && cp -f -- "$work/$l" "$out/$l.tmp" && mv -f -- "$out/$l.tmp" "$out/$l"
done
if [ -n "$cached" ] && mkdir -p "$cached.tmp.$$" 2>/dev/null; then
  (cd "$work" && cp --parents -- "${libs[@]}" "$cached.tmp.$$/") && touch "$cached.tmp.$$/done" &&
    { mv -T -- "$cached.tmp.$$" "$cached" 2>/dev/null || rm -rf -- "$cached.tmp.$$"; }
fi
echo "edashim's allocators: ${libs[*]} built in $((SECONDS - start)) s"
