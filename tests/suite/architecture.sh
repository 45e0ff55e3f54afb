#!/usr/bin/env bash
# docs/architecture.md against the tree: every source file under shim/ is named there (as
# folder/file, or by its file name in its folder's entry), and every shim/ path it names exists.
# Usage: architecture.sh SOURCE_DIR
set -uo pipefail
src=$(cd "${1:?source dir}" && pwd)
doc=$src/docs/architecture.md
cd "$src/shim" || exit 1
failed=0
while IFS= read -r f; do
  dir=${f%/*} name=${f##*/} stem=${name%.*}
  [[ $f == */* ]] || dir=top
  # The folder's bullet ("- `run/`: ...") names its files by file name; a path anywhere counts too.
  entry=$(awk -v d="- \`$dir/\`" -v top="$([[ $dir == top ]] && echo 1)" '
    /^- / { on = (top ? index($0, "- top:") == 1 : index($0, d) == 1) }
    on { print }' "$doc")
  if ! grep -qF "$f" "$doc" && ! grep -qE "\`$stem\.(c|h|cpp|hpp)\`" <<<"$entry"; then
    echo "FAIL: shim/$f is not in docs/architecture.md (add it to the $dir/ entry with a few words)"
    failed=1
  fi
done < <(find . -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' | sed 's#^\./##' | sort)
# Paths the page names, folder/file with an extension: each must exist (no stale entry).
while IFS= read -r p; do
  [ -e "$p" ] || { echo "FAIL: docs/architecture.md names $p, which is not in shim/"; failed=1; }
done < <(grep -oE '`[a-z_]+/[a-z_0-9]+\.(c|h|cpp|hpp)`' "$doc" | tr -d '`' | sort -u)
# A folder's bullet names bare files: each must be in that folder.
while IFS= read -r line; do
  dir=$(sed -E 's/^- `([a-z_]+)\/`.*/\1/' <<<"$line")
  [ -d "$dir" ] || { echo "FAIL: docs/architecture.md has a bullet for $dir/, which is not in shim/"; failed=1; continue; }
  for n in $(awk -v d="- \`$dir/\`" '/^- / { on = index($0, d) == 1 } on' "$doc" | grep -oE '`[a-z_0-9]+\.(c|h|cpp|hpp)`' | tr -d '`'); do
    [ -e "$dir/$n" ] || { echo "FAIL: docs/architecture.md lists $n under $dir/, which has no such file"; failed=1; }
  done
done < <(grep -E '^- `[a-z_]+/`' "$doc")
[ "$failed" = 0 ] && echo "docs/architecture.md names every source file of shim/, and only those"
exit "$failed"
