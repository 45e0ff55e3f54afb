#!/usr/bin/env bash
# install/uninstall.sh: removes exactly what install/install.sh recorded in its manifest, and
# nothing else. Your config (~/.config/edashim) and run log (~/.local/state/edashim) stay unless
# --purge. Debian packages stay (other programs may use them).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: install/uninstall.sh [--prefix DIR | --system] [--purge] [--dry-run]

Removes what install/install.sh installed, as listed in PREFIX/share/edashim/install-manifest.txt:
files, shim links, the PATH line it added to your shell files, and directories it created (only
when empty). Anything else, including your edashim config and run log, stays.

Options:
  --prefix DIR   the prefix given to install.sh (default: ~/.local, or the prefix this copy of
                 the script is installed under)
  --system       the /usr/local install (uses sudo when needed)
  --purge        also remove your edashim config, trust list, run log and cache
                 ($XDG_CONFIG_HOME/edashim, $XDG_STATE_HOME/edashim, $XDG_CACHE_HOME/edashim)
  --dry-run      say what would be removed; remove nothing
  -h, --help     this help
EOF
}

say() { printf 'uninstall.sh: %s\n' "$*"; }
die() { printf 'uninstall.sh: error: %s\n' "$*" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=""
purge=0 dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; prefix=$2; shift ;;
    --prefix=*) prefix=${1#*=} ;;
    --system) prefix=/usr/local ;;
    --purge) purge=1 ;;
    --dry-run|-n) dry=1 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see: uninstall.sh --help)" ;;
  esac
  shift
done
if [ -z "$prefix" ]; then
  # The copy installed as PREFIX/share/edashim/uninstall.sh knows its prefix.
  # As root, install.sh's default is /usr/local (root's home is not readable by other users).
  if [ -f "$here/install-manifest.txt" ]; then prefix=$(dirname "$(dirname "$here")")
  elif [ "$(id -u)" = 0 ] && [ -f /usr/local/share/edashim/install-manifest.txt ]; then prefix=/usr/local
  else prefix="$HOME/.local"; fi
fi
case "$prefix" in /*) ;; *) prefix="$(pwd)/$prefix" ;; esac
prefix=${prefix%/}
manifest="$prefix/share/edashim/install-manifest.txt"
if [ ! -f "$manifest" ]; then
  if dpkg-query -W -f='${Status}' edashim 2>/dev/null | grep -q 'install ok installed'; then
    die "no manifest at $manifest; edashim was installed from its .deb: sudo apt-get remove edashim"
  fi
  die "no manifest at $manifest: nothing was installed there by install.sh (wrong prefix? try --prefix DIR or --system)"
fi
grep -qx "prefix $prefix" "$manifest" || die "$manifest was written for another prefix; not touching anything"

sudo_cmd=""
if [ "$(id -u)" != 0 ] && [ ! -w "$(dirname "$manifest")" ]; then
  command -v sudo >/dev/null || die "$prefix is not writable by you and sudo is missing"
  sudo_cmd=sudo
fi
run() {
  if [ "$dry" = 1 ]; then printf '  would run: %s\n' "$*"; else ${sudo_cmd:+$sudo_cmd} "$@"; fi
}

tag="# added by edashim install.sh"
files=() links=() dirs=() rcs=()
while read -r kind path; do
  case "$kind" in
    file) files+=("$path") ;;
    link) links+=("$path") ;;
    dir) dirs+=("$path") ;;
    rc) rcs+=("$path") ;;
  esac
done <"$manifest"

removed=0 kept=()
for f in "${rcs[@]}"; do
  { [ -f "$f" ] && grep -qF -- "$tag" "$f"; } || continue
  # Rewritten in place (not replaced), so the file keeps its owner, mode and links.
  if [ "$dry" = 1 ]; then say "would remove the PATH line from $f"; continue; fi
  content=$(grep -vF -- "$tag" "$f" || true)
  if [ -n "$content" ]; then printf '%s\n' "$content" >"$f"; else : >"$f"; fi
  say "removed the PATH line from $f"
done
for l in "${links[@]}"; do
  if [ -L "$l" ]; then run rm -f -- "$l"; removed=$((removed + 1))
  elif [ -e "$l" ]; then kept+=("$l (no longer a link; not ours to remove)"); fi
done
for f in "${files[@]}"; do
  [ "$f" = "$manifest" ] && continue
  if [ -f "$f" ] || [ -L "$f" ]; then run rm -f -- "$f"; removed=$((removed + 1)); fi
done
run rm -f -- "$manifest"
# Deepest first, and only when empty: a directory holding anything we did not install stays.
while IFS= read -r d; do
  [ -d "$d" ] || continue
  if [ "$dry" = 1 ]; then printf '  would remove %s if empty\n' "$d"; continue; fi
  others=$(find "$d" -mindepth 1 -maxdepth 1 -printf '%f ' | head -c 200)
  if [ -z "$others" ]; then ${sudo_cmd:+$sudo_cmd} rmdir -- "$d"
  else kept+=("$d (not empty: $others)"); fi
done < <(printf '%s\n' "${dirs[@]}" | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2-)

if [ "$dry" = 1 ]; then say "would remove $removed files and links installed under $prefix (nothing was removed)"
else say "removed $removed files and links installed under $prefix"; fi
for k in "${kept[@]}"; do say "kept $k"; done

config="${XDG_CONFIG_HOME:-$HOME/.config}/edashim"
state="${XDG_STATE_HOME:-$HOME/.local/state}/edashim"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/edashim"
if [ "$purge" = 1 ]; then
  for d in "$config" "$state" "$cache"; do
    [ -e "$d" ] || continue
    if [ "$dry" = 1 ]; then say "would remove $d"; else rm -rf -- "$d"; say "removed $d"; fi
  done
else
  for d in "$config" "$state" "$cache"; do if [ -e "$d" ]; then say "kept $d (yours; --purge removes it)"; fi; done
fi
say "Debian packages were left installed; remove what you no longer need with apt-get remove."
