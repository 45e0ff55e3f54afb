#!/usr/bin/env bash
# install/install.sh: installs edashim on Debian 12 (packages, Release build, prefix, shim links,
# PATH line), checks it with `edashim doctor` and runs the bundled example through a link.
# Running it again changes nothing. install/uninstall.sh removes what the manifest lists.
set -euo pipefail
umask 022

usage() {
  cat <<'EOF'
Usage: install/install.sh [OPTIONS]

Installs edashim: Debian packages (from install/packages.txt), a Release build, the files under
a prefix, links for the EDA tools installed on this machine, and (if you agree) the PATH line.
Ends with `edashim doctor` and a run of examples/counter through the `yosys` link.

Options:
  --prefix DIR       install under DIR (default: ~/.local; as root: /usr/local, as --system)
  --system           install under /usr/local (shims in /usr/local/lib/edashim/shims); uses sudo
  --no-packages      do not install Debian packages (you installed them yourself)
  --build-dir DIR    build here (default: build-release in the source tree)
  --from-build DIR   install what DIR already built: no configure, no build (e.g. a test build)
  --tools "A B ..."  tool names to link instead of the default list (only installed ones are linked)
  --yes              add the PATH line to your shell start-up files without asking
  --no-path          do not offer to add the PATH line
  --no-example       skip the example run
  -h, --help         this help

Examples:
  install/install.sh                          everything, into ~/.local
  install/install.sh --system --yes           for all users, PATH via /etc/profile.d
  install/install.sh --no-packages --prefix /opt/edashim
Undo: install/uninstall.sh (same --prefix / --system); it keeps your config and run log.
EOF
}

say() { printf 'install.sh: %s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix="$HOME/.local"
system=0 packages=1 yes=0 offer_path=1 example=1 prefix_given=0
build_dir="$src/build-release" from_build=""
# Allocation-heavy tools worth running on a better allocator. Only those installed get a link:
# a link for a missing tool would make `command -v verilator` succeed and fool configure scripts.
# z3 is left out: newer z3 calls malloc_usable_size, and third-party allocators crashed it (z3 #6890).
tools="vpr odin_II parmys yosys yosys-abc berkeley-abc yices yices-smt2 yices-sat
       nextpnr-ice40 nextpnr-ecp5 nextpnr-generic icepack verilator_bin verilator_bin_dbg ivl boolector bitwuzla"

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; prefix_given=1; shift ;;
    --prefix=*) prefix=${1#*=}; prefix_given=1 ;;
    --system) system=1; prefix=/usr/local; prefix_given=1 ;;
    --no-packages) packages=0 ;;
    --build-dir) [ $# -ge 2 ] || die "--build-dir needs a directory"; build_dir=$2; shift ;;
    --from-build) [ $# -ge 2 ] || die "--from-build needs a build directory"; from_build=$2; shift ;;
    --tools) [ $# -ge 2 ] || die "--tools needs a list, e.g. --tools \"yosys vpr\""; tools=$2; shift ;;
    --yes|-y) yes=1 ;;
    --no-path) offer_path=0 ;;
    --no-example) example=0 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see: install/install.sh --help)" ;;
  esac
  shift
done
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac
prefix=${prefix%/}
# ld.so splits LD_PRELOAD at spaces and colons, so a probe library under such a path could never
# be preloaded: every run would go without it. edashim finds its libraries by its real path, so
# the real path counts, not a link to it.
for p in "$prefix" "$(realpath -m -- "$prefix")"; do
  case "$p" in
    *[\ :]*) die "cannot install under '$p': its path has a space or colon, which LD_PRELOAD cannot carry (ld.so splits it there), so edashim's library $p/lib/edashim/libedashim_probe.so could not be preloaded; choose a prefix whose real path has neither, e.g. --prefix /opt/edashim (a link to this directory does not help: edashim finds its libraries by its real path)" ;;
  esac
done

# The nearest existing directory at or above $1 that other users cannot search (no o+x); empty
# when every one can be.
closed_to_others() {
  local d=$1
  while [ ! -e "$d" ]; do d=$(dirname "$d"); done
  while :; do
    [ $(( 0$(stat -L -c %a "$d") & 1 )) -eq 1 ] || { echo "$d"; return; }
    [ "$d" = / ] && return
    d=$(dirname "$d")
  done
}
# Root's home is root's alone (0700): an install there is one no other user can read, and a root
# run that drops to another user (runuser, su, setpriv: CI entrypoints do) could not give that
# user edashim's libraries or its tools' routing. As root the default is system-wide.
if [ "$(id -u)" = 0 ] && [ "$prefix_given" = 0 ]; then
  system=1 prefix=/usr/local
  say "prefix: /usr/local, system-wide (as root; \$HOME/.local is not readable by other users, to whom root's flows may drop)"
elif [ "$(id -u)" = 0 ] && closed=$(closed_to_others "$prefix") && [ -n "$closed" ]; then
  say "warning: $closed (mode $(stat -L -c %a "$closed")) is not searchable by other users: processes a root run starts as another user (runuser, su, setpriv) run without edashim below that point; for all users install with --system"
fi
shimdir="$prefix/lib/edashim/shims"
bindir="$prefix/bin"
manifest="$prefix/share/edashim/install-manifest.txt"

# sudo only where we cannot write ourselves.
sudo_cmd=""
if [ "$(id -u)" != 0 ]; then
  probe=$prefix
  while [ ! -e "$probe" ]; do probe=$(dirname "$probe"); done
  if [ ! -w "$probe" ] || { [ -e "$manifest" ] && [ ! -w "$manifest" ]; }; then
    command -v sudo >/dev/null || die "$prefix is not writable by you and sudo is missing; choose --prefix DIR"
    sudo_cmd=sudo
  fi
fi
as_owner() { ${sudo_cmd:+$sudo_cmd} "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- 1. Debian packages -------------------------------------------------------------------
if [ "$packages" = 1 ]; then
  mapfile -t wanted < <(sed 's/#.*//' "$src/install/packages.txt" | xargs -n1)
  missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} = 0 ]; then
    say "packages: all ${#wanted[@]} from install/packages.txt are installed"
  else
    apt_sudo=""
    if [ "$(id -u)" != 0 ]; then
      command -v sudo >/dev/null || die "installing ${missing[*]} needs root: run as root, or install them and use --no-packages"
      apt_sudo=sudo
    fi
    say "packages: installing ${missing[*]}"
    # Another apt at work (a fresh VM's unattended upgrades at boot) holds the lock: wait for it,
    # as apt says while it does, rather than stop at once.
    apt_wait=(-o DPkg::Lock::Timeout=900)
    if fuser /var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock >/dev/null 2>&1; then
      say "packages: another package manager is at work; waiting for it (15 minutes at most)"
    fi
    ${apt_sudo:+$apt_sudo} apt-get "${apt_wait[@]}" update
    ${apt_sudo:+$apt_sudo} env DEBIAN_FRONTEND=noninteractive apt-get "${apt_wait[@]}" install -y --no-install-recommends "${missing[@]}"
  fi
fi

# ---- 2. Build -----------------------------------------------------------------------------
# The build's own percentage, every 10 points, and a line every 20 s between them, so that
# minutes of compiling on a busy machine never look like a hang.
build_start=$SECONDS
build_progress() {
  local line pct shown=-10 last=0 rc
  while :; do
    if IFS= read -r -t 20 line; then
      [[ $line =~ ^\[\ *([0-9]+)%\] ]] || continue
      pct=${BASH_REMATCH[1]}; last=$pct
      if [ "$pct" -ge $((shown + 10)) ]; then shown=$pct; say "  build: $pct% after $((SECONDS - build_start)) s"; fi
    else
      rc=$?
      [ "$rc" -gt 128 ] || break
      say "  build: still at $last% after $((SECONDS - build_start)) s"
    fi
  done
}
if [ -n "$from_build" ]; then
  build_dir=$from_build
  [ -f "$build_dir/cmake_install.cmake" ] || die "$build_dir is not a configured CMake build directory (build it first, or drop --from-build)"
  say "build: using what $build_dir already built"
else
  say "build: Release in $build_dir (about 2 minutes on a quiet 2-core machine, longer on a busy one)"
  cmake -S "$src" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log" >&2; die "configuring failed (missing packages? run without --no-packages)"; }
  # The log lives in the build directory, not in $tmp: a failed build's log must outlive this script.
  build_log="$build_dir/install-build.log"
  if ! cmake --build "$build_dir" -j"$(nproc)" 2>&1 | tee "$build_log" | build_progress; then
    tail -40 "$build_log" >&2
    die "the build failed (its last 40 lines above; the full log is kept in $build_log); fix it, then run install/install.sh again"
  fi
  say "build: done in $((SECONDS - build_start)) s (log: $build_log)"
fi

# ---- 3. Files under the prefix ------------------------------------------------------------
# Installed into a staging directory first, to learn which files and directories an install
# brings, and which of those directories do not exist yet (uninstall removes only those).
DESTDIR="$tmp/stage" cmake --install "$build_dir" --prefix "$prefix" >/dev/null
stage="$tmp/stage$prefix"
declare -A old_entries=()
if [ -f "$manifest" ]; then
  while read -r kind path; do
    case "$kind" in file|link|dir|rc) old_entries["$kind $path"]=1 ;; esac
  done <"$manifest"
fi
entries=()
# Directories: the prefix and its missing ancestors, then every staged directory.
d=$prefix
while [ ! -e "$d" ]; do entries+=("dir $d"); d=$(dirname "$d"); done
while IFS= read -r rel; do
  [ -e "$prefix/$rel" ] || entries+=("dir $prefix/$rel")
done < <(cd "$stage" && find . -mindepth 1 -type d | sed 's|^\./||' | sort)
while IFS= read -r rel; do entries+=("file $prefix/$rel"); done < <(cd "$stage" && find . ! -type d | sed 's|^\./||' | sort)

# The manifest: this run's entries plus what an earlier run recorded (its directories exist
# now, but are still ours). Rewritten only when its content changes.
write_manifest() {
  local e all=("${entries[@]}")
  for e in "${!old_entries[@]}"; do
    case "$e" in
      rc*|file*) if [ -e "${e#* }" ]; then all+=("$e"); fi ;;
      *) all+=("$e") ;;
    esac
  done
  all+=("file $manifest")
  {
    echo "# edashim install manifest, written by install/install.sh."
    echo "# install/uninstall.sh removes exactly these: files and links, the PATH line from rc files,"
    echo "# then each directory if it is empty. Your config and run log are never listed here."
    echo "prefix $prefix"
    printf '%s\n' "${all[@]}" | sort -u
  } >"$tmp/manifest"
  if cmp -s "$tmp/manifest" "$manifest"; then
    say "manifest unchanged: $manifest"
  else
    as_owner mkdir -p "$(dirname "$manifest")"
    as_owner cp "$tmp/manifest" "$manifest"
    as_owner chmod 644 "$manifest"
    say "manifest: $manifest"
  fi
}

# Recorded before anything is installed, so that an interrupted first install can be undone.
[ -f "$manifest" ] || write_manifest >/dev/null
as_owner cmake --install "$build_dir" --prefix "$prefix" | { grep -c -- '-- Installing' || true; } >"$tmp/n"
say "files: $(cat "$tmp/n") new or updated under $prefix"
[ -x "$bindir/edashim" ] || die "$bindir/edashim is missing after the install; see the build log in $build_dir"

# ---- 4. Shim links ------------------------------------------------------------------------
before=$(as_owner "$bindir/edashim" shims list --names --dir "$shimdir")
# shellcheck disable=SC2086  # the tool list is words
as_owner "$bindir/edashim" shims add --if-found --dir "$shimdir" $tools | sed 's/^/  /'
after=$(as_owner "$bindir/edashim" shims list --names --dir "$shimdir")
for name in $after; do
  grep -qx -- "$name" <<<"$before" || entries+=("link $shimdir/$name")
done
# The examples' tools: examples/ice40 runs yosys, nextpnr-ice40 and icepack, each through its
# link; examples/formal's z3 stays plain (see the tool list's comment), only its yosys is ours.
case " $tools " in *" z3 "*) ;; *)
  if command -v z3 >/dev/null; then say "  z3 is not linked (examples/formal's solver runs plain: third-party allocators crashed newer z3, z3 #6890); edashim shims add z3 if yours is safe"; fi ;;
esac

# ---- 5. The PATH line ---------------------------------------------------------------------
tag="# added by edashim install.sh"
show_dir() { case "$1" in "$HOME"/*) printf '%s' "\$HOME${1#"$HOME"}" ;; *) printf '%s' "$1" ;; esac; }
path_dirs=$(show_dir "$shimdir")
case ":$PATH:" in *":$bindir:"*) ;; *) path_dirs="$path_dirs:$(show_dir "$bindir")" ;; esac
sh_line="case \":\$PATH:\" in *\":$(show_dir "$shimdir"):\"*) ;; *) export PATH=\"$path_dirs:\$PATH\" ;; esac  $tag"
IFS=: read -ra fish_dirs <<<"$path_dirs"
fish_line="contains -- \"$(show_dir "$shimdir")\" \$PATH; or set -gx PATH $(printf '"%s" ' "${fish_dirs[@]}")\$PATH  $tag"
# csh and tcsh, the login shell of many EDA sites: the same test, in their words.
csh_line="if ( \":\${PATH}:\" !~ *\":$(show_dir "$shimdir"):\"* ) setenv PATH \"$path_dirs:\${PATH}\"  $tag"
echo
say "PATH: the shim directory must come before the real tools. The line for your shell:"
echo "  bash (~/.bashrc), zsh (~/.zshrc):"
echo "    $sh_line"
echo "  fish (~/.config/fish/conf.d/edashim.fish):"
echo "    $fish_line"
echo "  csh, tcsh (~/.cshrc, ~/.tcshrc):"
echo "    $csh_line"

# Where the line goes, with consent: per user, or /etc for --system.
targets=()
if [ "$system" = 1 ]; then
  targets+=("new /etc/profile.d/edashim.sh")
  [ -d /etc/fish ] && targets+=("newfish /etc/fish/conf.d/edashim.fish")
else
  if [ -f "$HOME/.bashrc" ] || [ "$(basename "${SHELL:-}")" = bash ]; then targets+=("append $HOME/.bashrc"); fi
  [ -f "$HOME/.zshrc" ] && targets+=("append $HOME/.zshrc")
  for f in "$HOME/.tcshrc" "$HOME/.cshrc"; do [ -f "$f" ] && targets+=("appendcsh $f"); done
  [ -d "$HOME/.config/fish" ] && targets+=("newfish $HOME/.config/fish/conf.d/edashim.fish")
fi
pending=()
for t in "${targets[@]}"; do
  f=${t#* }
  if [ -f "$f" ] && grep -qF -- "$tag" "$f"; then
    say "PATH line already in $f"
    case "$t" in append*) entries+=("rc $f") ;; *) [ -n "${old_entries["file $f"]:-}" ] && entries+=("file $f") ;; esac
  else
    pending+=("$t")
  fi
done
if [ ${#pending[@]} -gt 0 ] && [ "$offer_path" = 1 ]; then
  add=0
  if [ "$yes" = 1 ]; then add=1
  elif [ -t 0 ] && [ -t 1 ]; then
    where=$(for t in "${pending[@]}"; do printf '%s\n' "${t#* }"; done | paste -sd, - | sed 's/,/, /g')
    printf 'install.sh: add it to %s? [y/N] ' "$where"
    read -r answer || answer=""
    case "$answer" in y|Y|yes|YES) add=1 ;; esac
  else
    say "not adding it anywhere (not interactive); run again with --yes to add it, or add it yourself"
  fi
  if [ "$add" = 1 ]; then
    for t in "${pending[@]}"; do
      f=${t#* }
      case "$t" in
        appendcsh*) printf '%s\n' "$csh_line" >>"$f"; entries+=("rc $f") ;;
        append*) printf '%s\n' "$sh_line" >>"$f"; entries+=("rc $f") ;;
        new*)
          d=$(dirname "$f")
          while [ ! -e "$d" ]; do entries+=("dir $d"); d=$(dirname "$d"); done
          as_owner mkdir -p "$(dirname "$f")"
          if [ "${t%% *}" = newfish ]; then line=$fish_line; else line=$sh_line; fi
          printf '%s\n' "$line" | as_owner tee "$f" >/dev/null
          entries+=("file $f") ;;
      esac
      say "added the PATH line to $f (takes effect in new shells)"
    done
  fi
fi

# ---- 6. The manifest ----------------------------------------------------------------------
write_manifest

# ---- 7. Doctor, then the example ----------------------------------------------------------
run_path="$shimdir:$bindir:$PATH"
echo
say "edashim doctor (with the PATH line applied):"
# From a neutral directory: project files around the caller's directory are not the install's business.
if (cd "$tmp" && PATH=$run_path "$bindir/edashim" doctor --dir "$shimdir") | sed 's/^/  /'; then status=0; else status=1; fi

if [ "$example" = 1 ]; then
  echo
  if ! PATH=$run_path command -v yosys >/dev/null || [ ! -L "$shimdir/yosys" ]; then
    say "example skipped: yosys is not installed (sudo apt-get install yosys, then: edashim shims add yosys)"
  else
    say "example: synthesizing examples/counter/counter.v with yosys, through the link in $shimdir"
    mkdir -p "$tmp/example"
    cp "$src/examples/counter/counter.v" "$tmp/example/"
    log="${EDASHIM_LOG:-${XDG_STATE_HOME:-$HOME/.local/state}/edashim/runs.jsonl}"
    # HOME points into the example directory because yosys writes ~/.yosys_history even when
    # not interactive; the XDG variables keep edashim on the user's own config and run log.
    config_home=${XDG_CONFIG_HOME:-$HOME/.config} state_home=${XDG_STATE_HOME:-$HOME/.local/state}
    (cd "$tmp/example" && HOME=$tmp/example XDG_CONFIG_HOME=$config_home XDG_STATE_HOME=$state_home \
      PATH=$run_path yosys -q -p 'synth -top counter; abc; tee -q -o stat.txt stat' counter.v) ||
      die "the example run failed (see above); edashim doctor may say why"
    say "  $(grep -m1 'Number of cells' "$tmp/example/stat.txt" | xargs)"
    if [ -f "$log" ]; then
      say "the run's entry in $log (main fields):"
      if command -v python3 >/dev/null; then
        tail -n 1 "$log" | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
keep = ["tool", "path", "allocator", "allocator_verified", "env_set", "wall_s", "max_rss_kb", "exit_code"]
print(json.dumps({k: j[k] for k in keep if k in j}, indent=2))' | sed 's/^/  /'
        say "the whole entry: tail -n 1 $log | python3 -m json.tool"
      else
        tail -n 1 "$log"
      fi
    else
      say "no run log at $log (EDASHIM_LOG=off?)"
    fi
  fi
fi

echo
if [ "$status" = 0 ]; then
  say "done. Open a new shell (or run the PATH line above); then \`yosys\` runs through edashim."
else
  say "installed, but edashim doctor found problems (listed above, each with its fix)."
fi
undo="$src/install/uninstall.sh"
if [ "$system" = 1 ]; then undo="$undo --system"; elif [ "$prefix" != "$HOME/.local" ]; then undo="$undo --prefix $prefix"; fi
say "more: edashim --help, man edashim, edashim shims list. Undo: $undo"
exit "$status"
