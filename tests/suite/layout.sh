#!/usr/bin/env bash
# The source layout's rules (docs/architecture.md), checked on the tree itself:
# - no two folders of shim/ include each other, directly or through others (the config<->alloc and
#   bench<->commands cycles came back silently before this check existed);
# - util/ includes nothing of edashim's other folders;
# - config/ includes nothing of learn/, run/ nothing of config/ (issue 27: each takes plain data);
# - each allocator's library names and Debian package are written once, in alloc/registry.cpp
#   (issue 27: the package name was written twice, and one copy named tbbmalloc's for any name);
# - runlog/ (the run log's schema, writer, reader and locked append) includes util/ only, so that
#   runs, report, bench and farm all share it, and its writer and reader take every field's name
#   from runlog/schema.hpp (issue 27: the format was split over four folders).
# Usage: layout.sh SOURCE_DIR
set -uo pipefail
cd "${1:?source dir}/shim" || exit 1
# "folder dependency" pairs from every #include "folder/..." that crosses a folder boundary.
edges=$(grep -rHoE '^#include "[a-z_]+/' --include='*.cpp' --include='*.hpp' --include='*.c' --include='*.h' . |
  sed -E 's#^\./([a-z_]+)/[^:]*:\#include "([a-z_]+)/#\1 \2#' | awk '$1 != $2 && $1 !~ /^\./' | sort -u)
[ -n "$edges" ] || { echo "FAIL: found no includes between folders (is this the source tree?)"; exit 1; }
failed=0
# util/ names nothing of edashim in what it says either: no string literal with the product's
# name, its settings or its files (a caller passes such words in, as SharedDirs::how_to_share).
if words=$(grep -nE '"[^"]*(edashim|shared_dirs|config\.toml|\.edashim)[^"]*"' util/*.cpp util/*.hpp); then
  echo "FAIL: util/ speaks of edashim (pass the words in from the caller):"; echo "$words"; failed=1
fi
if grep -q '^util ' <<<"$edges"; then
  echo "FAIL: util/ includes edashim folders:"; grep '^util ' <<<"$edges"; failed=1
fi
# tsort reports a cycle on stderr ("input contains a loop") and lists its members.
if ! loop=$(tsort <<<"$edges" 2>&1 >/dev/null) || [ -n "$loop" ]; then
  echo "FAIL: the folders include each other in a cycle:"; echo "$loop"; failed=1
fi
# Folders that may not include each other at all, even without a cycle (issue 27): config/ takes
# the learned layer as data (pipeline/learned_layer.cpp reads learned.toml through learn/), and
# run/ builds the environment from plain inputs (pipeline/plan.cpp takes them from the settings).
while read -r from to how; do
  if grep -qx "$from $to" <<<"$edges"; then
    echo "FAIL: $from/ includes $to/ ($(grep -rlE "^#include \"$to/" --include='*.cpp' --include='*.hpp' "$from" | sort | paste -sd' ' -));"
    echo "      $how"; failed=1
  fi
done <<'RULES'
config learn config::load takes the learned layer as data (LoadRequest::read_learned); read learned.toml in pipeline/
run config run::build_environment takes plain inputs (run::EnvInputs); take them from the settings in pipeline/
RULES
if grep '^runlog ' <<<"$edges" | grep -qv '^runlog util$'; then
  echo "FAIL: runlog/ includes more than util/ (pass it plain values instead):"; grep '^runlog ' <<<"$edges" | grep -v '^runlog util$'
  failed=1
fi
# A field written or compared by a string literal in runlog/ is a second spelling of a schema name.
literals=$(grep -nE '(\.(field|key)\(|name == *)"[a-z_]+"' runlog/*.cpp runlog/*.hpp)
if [ -n "$literals" ]; then
  echo "FAIL: run-log field names written outside runlog/schema.hpp (use runlog::key::...):"; echo "$literals"; failed=1
fi
# A string literal holding libmimalloc..., libjemalloc..., libtcmalloc... or libtbbmalloc... (a
# soname, a file-name prefix or a Debian package) outside the registry is a copy to keep in step.
# Comments may name them: the code part of each line is what counts.
copies=$(grep -rnE '"[^"]*lib(mi|je|tc|tbb)malloc' --include='*.cpp' --include='*.hpp' --include='*.c' --include='*.h' . |
  grep -v '^\./alloc/registry\.cpp:' |
  awk -F: '{ code = substr($0, length($1) + length($2) + 3); sub(/^[ \t]*(\/\*|\*).*/, "", code); sub(/\/\/.*/, "", code)
             if (code ~ /"[^"]*lib(mi|je|tc|tbb)malloc/) print }')
if [ -n "$copies" ]; then
  echo "FAIL: allocator library or package names written outside alloc/registry.cpp (ask alloc::find_family,"
  echo "      alloc::debian_package or alloc::family_of_library instead):"; echo "$copies"; failed=1
fi
[ "$failed" = 0 ] && echo "ok: $(wc -l <<<"$edges") folder dependencies, no cycle, util/ stands alone, config/ without learn/, run/ without config/, allocator names in one place, runlog/ on util/ alone with its names in its schema"
exit "$failed"
