#!/usr/bin/env bash
# fetch.sh DEST: the source tarballs sources.txt pins, in DEST, each checked against its SHA-256.
# Those already in DEST and intact are kept; the rest come from `apt-get source`, through a
# private list of deb-src entries made from this machine's own deb entries (its deb822 .sources
# files and one-line .list files), so no address is written anywhere and nothing under /etc or
# /var/lib/apt changes. Exit status 0 when every tarball is in DEST; else 1, and stderr says why
# in one line (CMake then builds without edashim's own allocators, and says so).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: fetch.sh DEST}
mkdir -p "$dest"

intact() { [ -f "$dest/$1" ] && echo "$2  $dest/$1" | sha256sum -c --quiet - > /dev/null 2>&1; }
wanted=() files=() sums=()
while read -r name package version file sum; do
  [[ -z ${name:-} || $name == \#* ]] && continue
  intact "$file" "$sum" && continue
  wanted+=("$package=$version") files+=("$file") sums+=("$sum")
done < "$here/sources.txt"
((${#wanted[@]})) || exit 0

command -v apt-get > /dev/null || { echo "no apt-get on this machine to fetch ${wanted[*]} with" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/edashim-fetch.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial" "$work/download"
shopt -s nullglob
for f in /etc/apt/sources.list.d/*.sources; do
  sed -e 's/^Types:.*/Types: deb-src/' "$f" > "$work/parts/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && sed -n -e 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >> "$work/parts/from-lists.list"
done
apt=(apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts"
  -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o Debug::NoLocking=1
  -o APT::Sandbox::User="$(id -un)")
if ! "${apt[@]}" update > "$work/update.log" 2>&1; then
  echo "apt-get update of this machine's sources as deb-src failed: $(grep -E '^(E|W):' "$work/update.log" | head -1)" >&2
  exit 1
fi
if ! (cd "$work/download" && "${apt[@]}" source --download-only "${wanted[@]}") > "$work/source.log" 2>&1; then
  echo "apt-get source ${wanted[*]} failed: $(grep -E '^E:' "$work/source.log" | head -1)" >&2
  exit 1
fi
for i in "${!files[@]}"; do
  got=$work/download/${files[i]}
  [ -f "$got" ] || { echo "apt-get source ${wanted[i]} gave no ${files[i]}" >&2; exit 1; }
  echo "${sums[i]}  $got" | sha256sum -c --quiet - > /dev/null 2>&1 ||
    { echo "${files[i]} from apt-get source does not have the SHA-256 sources.txt pins" >&2; exit 1; }
  mv -f -- "$got" "$dest/${files[i]}"
done
