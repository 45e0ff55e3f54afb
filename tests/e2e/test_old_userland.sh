#!/usr/bin/env bash
# One build for every node of a farm (issue 36): the relocatable tarball built here (Debian 12,
# glibc 2.36) runs on an older userland. A Debian 11 root file system (bullseye: glibc 2.31, its
# own yosys 0.9 and jemalloc 5.2.1) made with debootstrap from Debian's package registry; the
# tarball unpacked outside it and bind-mounted read-only at /tools/edashim, as a shared tools
# tree is; an ordinary user of that system runs yosys directly, through the tree's links and under
# `edashim run --`, in a chroot: the same output, files and status, no ld.so line, and the log
# line says jemalloc served every process (the probe's proof, allocator_verified): the tree's
# own jemalloc (issue 48), with the node's package moved away, as on a node that has none; then
# the node's own, named by path in the site's configuration. An allocator neither has is told
# with advice that fits Debian 11 (issue 47). And without /proc mounted in the chroot (issue
# 46): the links run yosys as directly, with no loop.
#
# Root only (debootstrap, chroot, mount). Mounts live in a mount namespace of their own
# (unshare -m), so none outlives the test even if it is killed; they are also unmounted on exit.
# The root file system is cached as a tarball keyed by what makes it (suite, mirror, packages):
# EDASHIM_CI_CACHE (default /var/cache/edashim-ci). EDASHIM_TARBALL: test that tarball instead
# of one made from this build (cpack -G TGZ). EDASHIM_CI_DEBIAN_MIRROR: another mirror.
source "$(dirname "$0")/lib.sh"

SUITE=bullseye
# The Debian mirror this machine's apt uses (its deb822 sources, else sources.list), not the
# security archive: the machine says where Debian's packages come from, not this file.
apt_mirror() {
  local uri
  uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
    /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$uri" ] || uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\// && $i !~ /security/) { print $i; exit } }' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
  echo "$uri"
}
MIRROR=${EDASHIM_CI_DEBIAN_MIRROR:-$(apt_mirror)}
# yosys 0.9's own libraries and abc; yosys itself is unpacked without its xdot and python3
# (for `show` and yosys-smtbmc only), whose GTK stack debootstrap cannot configure and would
# triple the root file system.
PACKAGES=libjemalloc2,berkeley-abc,libffi7,libreadline8,libtcl8.6
CACHE=${EDASHIM_CI_CACHE:-/var/cache/edashim-ci}
BUILD=$(dirname "$(dirname "$BIN")")

need_root_tools() {
  [ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mount)"
  export PATH=$PATH:/usr/sbin:/sbin  # chroot, debootstrap; the sandbox's PATH leaves them out
  for t in debootstrap unshare chroot; do
    command -v "$t" >/dev/null || skip "$t is missing (see install/packages.txt)"
  done
}

# rootfs DIR: the bullseye root file system, from the cache or made (and cached). Says which and
# how long it took.
rootfs() {
  local dir=$1 key file start=$SECONDS
  key=$(printf '%s\n' "$SUITE" "$MIRROR" "$PACKAGES" minbase "yosys --force-depends" | sha256sum | cut -c1-16)
  file=$CACHE/debian-$SUITE-$key.tar.gz
  mkdir -p "$dir"
  if [ -f "$file" ] && tar -C "$dir" -xzf "$file"; then
    echo "    root file system: $file, unpacked in $((SECONDS - start)) s"
    return 0
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$dir" "$MIRROR" > "$SB/debootstrap.log" 2>&1 ||
    fail "debootstrap $SUITE from $MIRROR failed (last lines: $(tail -5 "$SB/debootstrap.log" | tr '\n' '|'))"
  chroot "$dir" sh -c 'apt-get update -qq && cd /tmp && apt-get download -qq yosys && dpkg --force-depends -i yosys_*.deb &&
    rm yosys_*.deb && apt-get clean && rm -rf /var/lib/apt/lists/*' > "$SB/yosys.log" 2>&1 ||
    fail "installing $SUITE's yosys failed: $(tail -5 "$SB/yosys.log" | tr '\n' '|')"
  echo "    root file system: debootstrap $SUITE ($PACKAGES) in $((SECONDS - start)) s"
  # Cached for the next run where the machine keeps /var/cache (written aside, then renamed).
  if mkdir -p "$CACHE" 2>/dev/null && tar -C "$dir" -czf "$file.tmp.$$" . 2>/dev/null && mv "$file.tmp.$$" "$file"; then
    echo "    cached as $file ($(du -h "$file" | cut -f1)) after $((SECONDS - start)) s"
  else
    rm -f "$file.tmp.$$"
    echo "    (not cached: cannot write $CACHE)"
  fi
}

# The tarball of this build, as `cpack` makes it (or EDASHIM_TARBALL), unpacked into DIR: the
# tree is its single top directory.
unpack_tarball() {
  local dir=$1 tarball=${EDASHIM_TARBALL:-}
  if [ -z "$tarball" ]; then
    [ -f "$BUILD/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $BUILD (is $BIN in a build tree?)"
    cpack -G TGZ --config "$BUILD/CPackConfig.cmake" -B "$SB/pkg" > "$SB/cpack.log" 2>&1 ||
      fail "cpack -G TGZ failed: $(tail -5 "$SB/cpack.log" | tr '\n' '|')"
    tarball=$(ls "$SB"/pkg/edashim-*.tar.gz)
  fi
  mkdir -p "$dir"
  tar -C "$dir" -xzf "$tarball" || fail "cannot unpack $tarball"
  local shim
  shim=$(find "$dir" -path '*/bin/edashim' -type f | head -1)
  [ -n "$shim" ] || fail "$tarball holds no bin/edashim"
  TREE=$(dirname "$(dirname "$shim")")
  echo "    tarball: $tarball"
}

# What runs inside the mount namespace: mounts, links made while the tree is still writable (as
# the CAD group does once), the tree made read-only, then each way of running yosys as the
# chroot's user, and last through the links on a node whose allocator is where a site config
# says (S). Writes D.*, L.*, R.*, S.* (stdout, stderr, status, yosys' stat) into the user's work
# directory.
write_inside() {
  cat > "$SB/inside.sh" <<'SH'
set -u
root=$1 tree=$2
mounted=()
cleanup() { local i; for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" || umount -l "${mounted[$i]}"; done; }
trap cleanup EXIT
mnt() { mount "$@" && mounted+=("${@: -1}"); }
mnt -t proc proc "$root/proc" || exit 10
mkdir -p "$root/dev/shm" && mnt -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm" || exit 11
mkdir -p "$root/tools/edashim" && mnt --bind "$tree" "$root/tools/edashim" || exit 12
chroot "$root" /tools/edashim/bin/edashim shims add --dir /tools/edashim/lib/edashim/shims yosys yosys-abc berkeley-abc || exit 13
mount -o remount,bind,ro "$root/tools/edashim" || exit 14
# Read-only for real: root itself cannot write there now.
if chroot "$root" touch /tools/edashim/probe-write 2>/dev/null; then echo "the tree is writable" >&2; exit 15; fi
as_alice() {
  chroot --userspec=alice:alice "$root" /usr/bin/env -i HOME=/home/alice LANG=C.UTF-8 PATH="$1" \
    /bin/sh -c "cd /home/alice/work && $2"
}
plain=/usr/bin:/bin
links=/tools/edashim/lib/edashim/shims:/usr/bin:/bin
# No allocator package on the node (a stand-in for RHEL without EPEL, issue 48): the system's
# jemalloc goes where only a site's configuration would find it.
mkdir -p "$root/opt/site/alloc/lib" "$root/etc/edashim" &&
  mv "$root/usr/lib/x86_64-linux-gnu/libjemalloc.so.2" "$root/opt/site/alloc/lib/" || exit 16
for way in D L R; do
  path=$plain run=""
  [ $way = L ] && path=$links
  [ $way = R ] && run="/tools/edashim/bin/edashim run -- "
  as_alice "$path" "${run}yosys -q -p 'synth -top counter; abc; tee -q -o stat.$way.txt stat' counter.v > $way.out 2> $way.err; echo \$? > $way.st"
  as_alice "$path" "${run}yosys -q -p 'log hello' > $way.hello.out 2> $way.hello.err; echo \$? > $way.hello.st"
done
# An allocator neither the tree nor the node has (M): the run's notice and doctor's advice fit
# Debian 11 (issue 47).
as_alice "$links" "EDASHIM_ALLOCATOR=tbbmalloc yosys -V > M.out 2> M.err; echo \$? > M.st"
as_alice "$links" "/tools/edashim/bin/edashim doctor > doctor.out 2>&1"
# The tree's tcmalloc (T): C++, with the part of libstdc++ it uses inside it, in Debian 11's
# yosys, a C++ program with its own libstdc++.
as_alice "$links" "EDASHIM_ALLOCATOR=tcmalloc yosys -q -p 'synth -top counter; abc; tee -q -o stat.T.txt stat' counter.v > T.out 2> T.err; echo \$? > T.st"
# A site that wants its own library (S): the site's /etc/edashim/config.toml names it by path.
printf 'allocator = "/opt/site/alloc/lib/libjemalloc.so.2"\n' > "$root/etc/edashim/config.toml" || exit 17
way=S path=$links
as_alice "$path" "yosys -q -p 'synth -top counter; abc; tee -q -o stat.$way.txt stat' counter.v > $way.out 2> $way.err; echo \$? > $way.st"
as_alice "$path" "yosys -q -p 'log hello' > $way.hello.out 2> $way.hello.err; echo \$? > $way.hello.st"
# Without /proc (a build chroot, a sandbox without it): through the links as directly (N: no
# /proc, D directly, L the links), and no loop: edashim tells its link from the real tool by the
# path it was exec'd by. Bounded, in case it does loop (the test's pids cap stops a fork storm).
umount "$root/proc" || exit 18
mounted=("${mounted[@]:1}")  # /proc was the first
for way in ND NL; do
  path=$plain
  [ $way = NL ] && path=$links
  as_alice "$path" "timeout -s KILL 60 yosys -V > $way.out 2> $way.err; echo \$? > $way.st"
done
SH
}

test_a_debian_11_node_runs_the_tarball_read_only_with_its_own_yosys_and_jemalloc() {
  need_root_tools
  pids_cap 1000
  local root=$SB/root
  rootfs "$root"
  unpack_tarball "$SB/unpacked"
  [ -x "$root/usr/bin/yosys" ] && [ -e "$root/usr/lib/x86_64-linux-gnu/libjemalloc.so.2" ] ||
    fail "the root file system lacks yosys or libjemalloc2"
  # The tarball carries a jemalloc for glibc 2.34+ too: the runs below must not take it there.
  [ -f "$TREE/lib/edashim/alloc/glibc-2.34/libjemalloc.so.2" ] || fail "the tarball has no glibc-2.34 jemalloc"
  local ldd_version
  ldd_version=$(chroot "$root" /usr/bin/ldd --version | head -1)
  expect_contains "$ldd_version" "2.31" "the chroot's glibc"
  # An ordinary user of that system, with a home of its own (per-user state goes there).
  chroot "$root" /usr/sbin/useradd -m -u 4242 -s /bin/sh alice || fail "useradd in the chroot"
  mkdir -p "$root/home/alice/work"
  cp "$SRC/examples/counter/counter.v" "$root/home/alice/work/"
  chroot "$root" chown -R alice:alice /home/alice
  write_inside
  local rc=0
  unshare -m --propagation private bash "$SB/inside.sh" "$root" "$TREE" || rc=$?
  expect_eq "$rc" 0 "mounts, links and runs in the chroot (inside.sh status)"
  grep -q " $root" /proc/self/mountinfo && fail "a mount under $root outlived the namespace"
  local w=$root/home/alice/work way
  expect_eq "$(cat "$w/D.st") $(cat "$w/D.hello.st")" "0 0" "yosys directly in the chroot"
  for way in L R S; do
    expect_eq "$(cat "$w/$way.st")" "$(cat "$w/D.st")" "$way: status"
    expect_eq "$(cat "$w/$way.out")" "$(cat "$w/D.out")" "$way: stdout"
    expect_eq "$(cat "$w/$way.err")" "$(cat "$w/D.err")" "$way: stderr (no ld.so line)"
    cmp -s "$w/stat.D.txt" "$w/stat.$way.txt" || fail "$way: yosys' stat differs: $(diff "$w/stat.D.txt" "$w/stat.$way.txt" | head -5)"
    expect_eq "$(cat "$w/$way.hello.st") $(cat "$w/$way.hello.out")" "$(cat "$w/D.hello.st") $(cat "$w/D.hello.out")" "$way: log hello"
    expect_eq "$(cat "$w/$way.hello.err")" "" "$way: log hello's stderr"
  done
  expect_eq "$(cat "$w/ND.st")" 0 "without /proc, directly (the test itself)"
  expect_contains "$(cat "$w/ND.out")" "Yosys" "without /proc, directly: its version (the test itself)"
  expect_eq "$(cat "$w/NL.st") $(cat "$w/NL.out")" "$(cat "$w/ND.st") $(cat "$w/ND.out")" "without /proc, through the links"
  expect_eq "$(cat "$w/NL.err")" "$(cat "$w/ND.err")" "without /proc, through the links: stderr"
  # The run log, in the user's own home: each yosys run says jemalloc served every process.
  local log=$root/home/alice/.local/state/edashim/runs.jsonl
  [ -s "$log" ] || fail "no run log in the user's home"
  # Without jemalloc where a run looks: the run as directly, its notice in the line alone, and
  # the advice this release can follow (no Debian 12 package names, library_dirs named).
  expect_eq "$(cat "$w/M.st") $(cat "$w/M.out")" "$(cat "$w/ND.st") $(cat "$w/ND.out")" "tbbmalloc missing: yosys -V"
  expect_eq "$(cat "$w/M.err")" "" "tbbmalloc missing: nothing of edashim's on a tool's stderr"
  local told
  told=$(python3 -c 'import json, sys
print("\n".join(next(r for r in map(json.loads, open(sys.argv[1])) if r["argv"] == ["yosys", "-V"])["notices"]))' "$log")
  expect_contains "$told" "Install it: apt-get install libtbb2, or put libtbbmalloc_proxy.so.2 in a directory and name it in library_dirs" "tbbmalloc missing: the run's notice"
  local doctor
  doctor=$(cat "$w/doctor.out")
  expect_contains "$doctor" "/tools/edashim/lib/edashim/alloc/libjemalloc.so.2 (edashim's build)" "doctor on Debian 11: jemalloc"
  expect_contains "$doctor" "/tools/edashim/lib/edashim/alloc/libmimalloc.so.2 (edashim's build)" "doctor on Debian 11: mimalloc"
  expect_contains "$doctor" "tbbmalloc: not installed (needed only by profiles that choose it): Install it: apt-get install libtbb2" "doctor on Debian 11: tbbmalloc's package there"
  expect_contains "$doctor" "/tools/edashim/lib/edashim/alloc/libtcmalloc_minimal.so.4 (edashim's build)" "doctor on Debian 11: tcmalloc"
  expect_eq "$(cat "$w/T.st") $(cat "$w/T.out") $(cat "$w/T.err")" "$(cat "$w/D.st") $(cat "$w/D.out") $(cat "$w/D.err")" \
    "the tree's tcmalloc: status, stdout, stderr"
  cmp -s "$w/stat.D.txt" "$w/stat.T.txt" || fail "the tree's tcmalloc: yosys' stat differs"
  expect_not_contains "$doctor" "libmimalloc2.0" "doctor on Debian 11: a Debian 12 package"
  expect_not_contains "$doctor" "libtbbmalloc2" "doctor on Debian 11: a Debian 12 package"
  python3 - "$log" <<'PY' || fail "the run log does not show jemalloc verified for every yosys run"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
tc = [r for r in runs if r["tool"] == "yosys" and r["allocator"]["requested"] == "tcmalloc"]
assert len(tc) == 1, f"{len(tc)} yosys runs with tcmalloc logged, expected 1"
a = tc[0]["allocator"]
assert (a["library"], a["build"]) == ("/tools/edashim/lib/edashim/alloc/libtcmalloc_minimal.so.4", "edashim"), a
assert tc[0].get("allocator_verified") is True, (tc[0].get("allocator_verified"), tc[0].get("not_applied"))
yosys = [r for r in runs if r["tool"] == "yosys" and r["argv"] != ["yosys", "-V"] and r not in tc]
assert len(yosys) == 6, f"{len(yosys)} yosys runs logged, expected 6"
for i, r in enumerate(yosys):
    a = r["allocator"]
    # The first four: the tree's own jemalloc, on a node without any (its build for glibc 2.28:
    # this libc is 2.31). The last two: the one the site's configuration names by its path.
    want = ("/opt/site/alloc/lib/libjemalloc.so.2", "path", "5.2.1") if i >= 4 else \
           ("/tools/edashim/lib/edashim/alloc/libjemalloc.so.2", "edashim", "5.3.0")
    assert (a["library"], a["build"], a["version"].split("-")[0]) == want, (want, a)
    assert r.get("allocator_verified") is True, (r.get("allocator_verified"), r.get("processes"), r.get("not_applied"))
    assert r["exit_code"] == 0, r["exit_code"]
print("    %d yosys runs: jemalloc %s, verified in %s processes" % (
    len(yosys), yosys[0]["allocator"].get("version", "?"), [len(r.get("processes", [])) for r in yosys]))
PY
}

run_suite "$@"
