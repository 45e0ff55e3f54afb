#!/usr/bin/env bash
# The source layout's rules (README "How the source is laid out"), checked on the tree itself:
# - no two folders of shim/ include each other, directly or through others (the config<->alloc and
#   bench<->commands cycles came back silently before this check existed);
# - util/ includes nothing of edashim's other folders.
# Usage: layout.sh SOURCE_DIR
set -uo pipefail
cd "${1:?source dir}/shim" || exit 1
# "folder dependency" pairs from every #include "folder/..." that crosses a folder boundary.
edges=$(grep -rHoE '^#include "[a-z_]+/' --include='*.cpp' --include='*.hpp' --include='*.c' . |
  sed -E 's#^\./([a-z_]+)/[^:]*:\#include "([a-z_]+)/#\1 \2#' | awk '$1 != $2 && $1 !~ /^\./' | sort -u)
[ -n "$edges" ] || { echo "FAIL: found no includes between folders (is this the source tree?)"; exit 1; }
failed=0
if grep -q '^util ' <<<"$edges"; then
  echo "FAIL: util/ includes edashim folders:"; grep '^util ' <<<"$edges"; failed=1
fi
# tsort reports a cycle on stderr ("input contains a loop") and lists its members.
if ! loop=$(tsort <<<"$edges" 2>&1 >/dev/null) || [ -n "$loop" ]; then
  echo "FAIL: the folders include each other in a cycle:"; echo "$loop"; failed=1
fi
[ "$failed" = 0 ] && echo "ok: $(wc -l <<<"$edges") folder dependencies, no cycle, util/ stands alone"
exit "$failed"
