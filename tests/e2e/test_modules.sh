#!/usr/bin/env bash
# edashim's module files under the two module systems EDA sites use (issue 47, case 3): a tree
# installed from this build, a site's tool module that prepends the tool's own bin (as every
# site's do), and typing the tool's name afterwards. Lmod (Debian's lmod, installed): the Lua
# module keeps the links first. Environment Modules 5 (Debian's environment-modules conflicts
# with lmod, so its package is unpacked with dpkg -x and started by its own autoinit): it has no
# path priority, so edashim's module has it read a site configuration that moves the links back
# first; where that cannot act, doctor names the shadowing and the fix that fits, and that fix,
# run as written, puts the links first again.
source "$(dirname "$0")/lib.sh"

BUILD=$(dirname "$(dirname "$BIN")")
CACHE=${EDASHIM_CI_CACHE:-/var/cache/edashim-ci}

# The site's tree: this build installed into $SB/tree, yosys linked in it while it is writable.
make_tree() {
  command -v yosys > /dev/null || skip "yosys is not installed (Debian: apt-get install yosys)"
  cmake --install "$BUILD" --prefix "$SB/tree" > "$SB/install.log" 2>&1 ||
    fail "cmake --install $BUILD failed: $(tail -3 "$SB/install.log" | tr '\n' '|')"
  [ -d "$SB/tree/share/edashim/modulefiles/lua" ] && [ -d "$SB/tree/share/edashim/modulefiles/tcl" ] ||
    fail "the tree has no module files under share/edashim/modulefiles"
  "$SB/tree/bin/edashim" shims add --dir "$SB/tree/lib/edashim/shims" yosys > /dev/null || fail "shims add yosys"
  LINKS=$SB/tree/lib/edashim/shims
  TREE_LOG=$LOG
}

# A site's module for a tool (KIND lua or tcl): it prepends the tool's own bin, which holds the
# tool itself (here a link to Debian's yosys).
tool_module() {
  mkdir -p "$SB/toolbin" "$SB/mods/yosys"
  cp "$(command -v yosys)" "$SB/toolbin/yosys"
  if [ "$1" = lua ]; then
    printf 'prepend_path("PATH", "%s")\n' "$SB/toolbin" > "$SB/mods/yosys/0.23.lua"
  else
    printf '#%%Module1.0\nprepend-path PATH %s\n' "$SB/toolbin" > "$SB/mods/yosys/0.23"
  fi
}

# in_shell INIT SCRIPT: SCRIPT in a fresh bash after INIT (the module system's start), with the
# sandbox's environment and a PATH without the links, as a login on a node has. Its output; its
# status (doctor's is 1 with a problem) is for the checks on that output to judge.
in_shell() {
  PATH=/usr/local/bin:/usr/bin:/bin bash --norc --noprofile -c "$1
$2" 2>&1
  return 0
}

lines() { [ -f "$TREE_LOG" ] && wc -l < "$TREE_LOG" || echo 0; }

# Under INIT (a module system started, MODULEPATH set): `module load edashim; module load yosys`
# leaves typing yosys running it through the links, as directly, one run of the module's yosys
# logged, and doctor content.
expect_links_first_after_the_tool_module() {
  local init=$1 direct out
  direct=$(in_shell "$init" 'module load yosys; yosys -V; echo "status $?"')
  expect_contains "$direct" "Yosys" "directly, with the tool's module (the test itself)"
  out=$(in_shell "$init" 'module load edashim; module load yosys; echo "runs $(command -v yosys)"; yosys -V; echo "status $?"
    edashim doctor --dir '"$LINKS")
  expect_contains "$out" "runs $LINKS/yosys" "typing yosys after the tool's module"
  expect_contains "$out" "$direct" "yosys -V through the link: as directly"
  expect_contains "$out" "ok       yosys -> edashim -> $SB/toolbin/yosys" "doctor: the module's yosys, through edashim"
  expect_not_contains "$out" "shadowed" "doctor"
  expect_eq "$(lines)" 1 "one run logged"
  expect_eq "$(line_fields path)" "$SB/toolbin/yosys" "the run is the module's yosys"
}

# --- Lmod ---

LMOD_INIT=/usr/share/lmod/lmod/init/bash
need_lmod() { [ -f "$LMOD_INIT" ] || skip "Lmod is not installed (Debian: apt-get install lmod)"; }

test_lmod_keeps_the_links_first_after_a_tool_module_is_loaded() {
  need_lmod
  make_tree
  tool_module lua
  local init="source $LMOD_INIT; export MODULEPATH=$SB/mods:$SB/tree/share/edashim/modulefiles/lua" out
  expect_links_first_after_the_tool_module "$init"
  # Unloading edashim's module takes its two directories off PATH, and nothing else.
  out=$(in_shell "$init" 'p0=$PATH; module load edashim; module load yosys; module unload edashim; module unload yosys
    [ "$PATH" = "$p0" ] && echo "PATH restored" || echo "PATH now $PATH, was $p0"')
  expect_contains "$out" "PATH restored" "module unload"
}

test_lmod_doctor_names_edashims_module_when_a_tool_module_shadows_the_links() {
  need_lmod
  make_tree
  tool_module lua
  # The links put first by a login file's line, then a tool's module ahead of them.
  local init="source $LMOD_INIT; export MODULEPATH=$SB/mods; export PATH=$LINKS:$SB/tree/bin:\$PATH" out fix
  out=$(in_shell "$init" "module load yosys; edashim doctor --dir $LINKS")
  expect_contains "$out" "PROBLEM  yosys is shadowed: $SB/toolbin/yosys comes before the shim directory" "doctor"
  fix=$(sed -n 's/^ *fix: \(module use .*load edashim\)   (Lmod.*/\1/p' <<<"$out" | head -1)
  expect_eq "$fix" "module use $SB/tree/share/edashim/modulefiles/lua && module load edashim" "doctor's fix"
  out=$(in_shell "$init" "module load yosys; $fix; echo \"runs \$(command -v yosys)\"")
  expect_contains "$out" "runs $LINKS/yosys" "after doctor's fix, typing yosys"
}

# --- Environment Modules ---

# Unpacks Debian's environment-modules (from the cache, else downloaded and cached) into
# $SB/em and sets EM_INIT, the line that starts it as its init scripts do.
environment_modules() {
  local deb
  deb=$(ls "$CACHE"/environment-modules_*.deb 2>/dev/null | head -1)
  if [ -z "$deb" ]; then
    mkdir -p "$SB/deb"
    (cd "$SB/deb" && apt-get download environment-modules) > "$SB/deb.log" 2>&1 ||
      fail "apt-get download environment-modules failed: $(tail -3 "$SB/deb.log" | tr '\n' '|')"
    deb=$(ls "$SB"/deb/environment-modules_*.deb)
    mkdir -p "$CACHE" 2>/dev/null && cp "$deb" "$CACHE/" 2>/dev/null
  fi
  dpkg -x "$deb" "$SB/em" || fail "dpkg -x $deb"
  local cmd
  cmd=$(find "$SB/em" -name modulecmd.tcl -path '*linux-gnu*' | head -1)
  [ -n "$cmd" ] || fail "no modulecmd.tcl in $deb"
  EM_INIT="eval \"\$(tclsh $cmd bash autoinit)\""
}

# Environment Modules has no path priority; edashim's module has Modules read its extra site
# configuration, which moves the links back first after every module command.
test_environment_modules_keeps_the_links_first_after_a_tool_module_is_loaded() {
  make_tree
  tool_module tcl
  environment_modules
  # A site's own extra configuration, set before edashim's module: still read, and given back.
  printf 'set f [open {%s} a]; puts $f read; close $f\n' "$SB/site-read" > "$SB/site.tcl"
  local init="$EM_INIT; export MODULEPATH=$SB/mods:$SB/tree/share/edashim/modulefiles/tcl MODULES_SITECONFIG=$SB/site.tcl" out
  expect_links_first_after_the_tool_module "$init"
  expect_eq "$(grep -c read "$SB/site-read" 2>/dev/null)" 3 "the site's own extra configuration: read by every module command"
  # Unloading both gives PATH and the site's configuration back as they were.
  out=$(in_shell "$init" 'p0=$PATH; module load edashim; module load yosys; module unload edashim; echo "after unload: $(command -v yosys)"
    module unload yosys
    [ "$PATH" = "$p0" ] && echo "PATH restored" || echo "PATH now $PATH, was $p0"
    echo "siteconfig ${MODULES_SITECONFIG:-unset}; links ${EDASHIM_MODULE_LINKS:-unset}"')
  expect_contains "$out" "after unload: $SB/toolbin/yosys" "edashim's module unloaded: the tool's own bin"
  expect_contains "$out" "PATH restored" "module unload"
  expect_contains "$out" "siteconfig $SB/site.tcl; links unset" "the site's configuration given back"
}

test_environment_modules_shadowing_is_told_with_a_fix_that_works() {
  make_tree
  tool_module tcl
  environment_modules
  local init="$EM_INIT; export MODULEPATH=$SB/mods:$SB/tree/share/edashim/modulefiles/tcl" out fix
  # Loaded in one command, the tool's module after edashim's: the site configuration that
  # keeps the links first is read from the next command on, so the tool's bin wins here.
  out=$(in_shell "$init" 'module load edashim yosys; echo "then $(command -v yosys)"
    edashim doctor --dir '"$LINKS"'; edashim explain yosys')
  expect_contains "$out" "then $SB/toolbin/yosys" "the tool's module loaded in the same command (the premise)"
  expect_contains "$out" "PROBLEM  yosys is shadowed" "doctor"
  expect_contains "$out" "runs $SB/toolbin/yosys DIRECTLY, not through edashim" "explain"
  fix=$(sed -n 's/^ *fix: \(module .*load edashim\)   (Environment Modules.*/\1/p' <<<"$out" | head -1)
  expect_eq "$fix" "module unload edashim && module load edashim" "doctor's fix"
  expect_contains "$out" "To run it through edashim: $fix" "explain's fix"
  out=$(in_shell "$init" "module load edashim yosys; $fix; echo \"runs \$(command -v yosys)\"; yosys -V"'; echo "status $?"')
  expect_contains "$out" "runs $LINKS/yosys" "after the fix, typing yosys"
  expect_contains "$out" "status 0" "yosys -V after the fix"
  expect_eq "$(lines)" 1 "one run logged"
  expect_eq "$(line_fields path)" "$SB/toolbin/yosys" "the run is the module's yosys"
}

run_suite "$@"
