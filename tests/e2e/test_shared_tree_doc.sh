#!/usr/bin/env bash
# docs/install.md's "A shared tools tree and farm nodes", followed as written (issue 47, case 8:
# the section once stopped at a missing package, built the tests for most of an hour, untarred
# from the wrong directory and left the `edashim` command off PATH). Its commands are read from
# the page itself, so the page and this test cannot drift apart, and run in order from a copy of
# the repository's files: the build's packages, the build without tests, the tarball, the tree
# and its links, the PATH lines for sh and csh, then what a user does next (`edashim doctor`,
# `yosys`). One substitution: the page's example root, /tools/edashim, is a directory of the
# sandbox. As root without sudo (a container), `sudo` runs the command itself.
source "$(dirname "$0")/lib.sh"

PAGE=$SRC/docs/install.md

# The section's ```sh blocks (K: 1, 2, ...) or its inline `CODE` spans that start with PREFIX.
section_block() {
  python3 - "$PAGE" "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
part = text.split("\n## A shared tools tree and farm nodes\n", 1)[1].split("\n## ", 1)[0]
blocks = [re.sub(r"(?m)^ {3}", "", b) for b in re.findall(r"```sh\n(.*?)```", part, re.S)]
print(blocks[int(sys.argv[2]) - 1], end="")
PY
}
section_inline() {
  python3 - "$PAGE" "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
part = text.split("\n## A shared tools tree and farm nodes\n", 1)[1].split("\n## ", 1)[0]
part = re.sub(r"```.*?```", "", part, flags=re.S).replace("\n   ", " ")
print(next(c for c in re.findall(r"`([^`]+)`", part) if c.startswith(sys.argv[2])))
PY
}

test_the_shared_tree_section_works_as_written() {
  command -v yosys > /dev/null || skip "yosys is not installed (Debian: apt-get install yosys)"
  [ "$(id -u)" = 0 ] || command -v sudo > /dev/null || skip "step 1 installs packages: needs root or sudo"
  local build_steps tree_steps sh_line csh_line root=$SB/tools/edashim
  build_steps=$(section_block 1) || fail "no first sh block in the section"
  tree_steps=$(section_block 2) || fail "no second sh block in the section"
  sh_line=$(section_inline "export PATH=") || fail "no sh PATH line in the section"
  csh_line=$(section_inline "setenv PATH") || fail "no csh PATH line in the section"
  expect_contains "$build_steps" "install/packages.txt" "step 1 installs the build's packages"
  expect_contains "$build_steps" "-DBUILD_TESTING=OFF" "step 1 builds no tests"
  local allocator_cache
  allocator_cache=$(sed -n 's/^EDASHIM_ALLOCATOR_CACHE:PATH=//p' "$(dirname "$(dirname "$BIN")")/CMakeCache.txt")
  # A copy of the repository's files, as a clone has them (the build directory is not one).
  mkdir "$SB/repo"
  (cd "$SRC" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$SB/repo" -xf - ||
    fail "cannot copy the repository's files"
  cat > "$SB/steps.sh" <<SH
set -e
[ "\$(id -u)" = 0 ] && ! command -v sudo > /dev/null && sudo() { "\$@"; }
export DEBIAN_FRONTEND=noninteractive
# ccache's keys relative to the copy, as to the checkout the suite was built in (.ci/run), and
# the allocators' sources and builds where this build keeps them (not the sandbox's HOME).
export CCACHE_BASEDIR=$SB/repo
export EDASHIM_ALLOCATOR_CACHE=$allocator_cache
cd $SB/repo
echo "== step 1"
$build_steps
echo "== step 2"
${tree_steps//\/tools\/edashim/$root}
echo "== step 3"
${sh_line//\/tools\/edashim/$root}
command -v edashim
command -v yosys
edashim doctor
yosys -V
SH
  local out rc=0
  out=$(bash "$SB/steps.sh" 2>&1) || rc=$?
  expect_eq "$rc" 0 "the section's steps, then doctor and yosys (last lines: $(tail -5 <<<"$out" | tr '\n' '|'))"
  expect_contains "$out" "$root/bin/edashim" "step 3 puts the edashim command on PATH"
  expect_contains "$out" "$root/lib/edashim/shims/yosys" "step 3 puts the links first"
  expect_not_contains "$out" "PROBLEM" "doctor on the tree"
  expect_eq "$(line_fields "tool path")" "yosys $(readlink -f "$(command -v yosys)")" "yosys ran through the tree's link"
  [ -e "$SB/repo/build/tests" ] && fail "step 1 built the tests"
  expect_eq "$(last_log "$LOG" "j['allocator']['build'] + ' ' + j['allocator']['library']")" \
    "edashim $root/lib/edashim/alloc/glibc-2.34/libjemalloc.so.2" "the tree's own jemalloc, its build for this glibc (step 4)"
  # csh and tcsh users: the section's line for them, in tcsh.
  if command -v tcsh > /dev/null; then
    out=$(tcsh -fc "${csh_line//\/tools\/edashim/$root}; which edashim; which yosys" 2>&1)
    expect_eq "$out" "$root/bin/edashim
$root/lib/edashim/shims/yosys" "the csh line, in tcsh"
  else
    skip "tcsh is not installed (Debian: apt-get install tcsh)"
  fi
}

run_suite "$@"
