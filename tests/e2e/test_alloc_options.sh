#!/bin/bash
# Issue 17 item 3: a memory option set in a profile reaches the real allocator, which says so
# itself (jemalloc's stats_print, mimalloc's verbose option table, tcmalloc's MallocExtension
# properties, TBB_VERSION). The options are written in your own config file (trusted: some of
# the reporting options are restricted in project files), and the tool runs through its link.
source "$(dirname "$0")/lib.sh"

user_config() { mkdir -p "$XDG_CONFIG_HOME/edashim" && printf "$1" > "$XDG_CONFIG_HOME/edashim/config.toml"; }
need_lib() { [ -e "/usr/lib/x86_64-linux-gnu/$1" ] || skip "$1 is not installed"; }

test_jemalloc_reads_tcache_nslots_and_narenas_ratio() {
  need_lib libjemalloc.so.2
  user_config 'allocator = "jemalloc"\n[jemalloc]\nstats_print = true\ntcache_nslots_small_max = 10\nnarenas_ratio = 0.5\nretain = false\n'
  out=$(mytool exit 0 2>&1)
  expect_contains "$out" "opt.tcache_nslots_small_max: 10" "jemalloc applied tcache_nslots_small_max"
  expect_contains "$out" "opt.retain: false" "jemalloc applied retain"
  expect_not_contains "$out" "Invalid conf" "jemalloc accepted every pair"
}

test_mimalloc_reads_its_legacy_name_abandoned_page_reset() {
  need_lib libmimalloc.so.2
  user_config 'allocator = "mimalloc"\n[mimalloc]\nverbose = true\nabandoned_page_reset = true\nsegment_decommit_delay = 77\n'
  out=$(mytool exit 0 2>&1)
  expect_contains "$out" "option 'abandoned_page_decommit': 1" "mimalloc read the legacy name"
  expect_contains "$out" "option 'segment_decommit_delay': 77" "mimalloc read segment_decommit_delay"
}

test_tcmalloc_reads_disable_memory_release() {
  need_lib libtcmalloc_minimal.so.4
  cp "${TCMALLOC_PROPS:?TCMALLOC_PROPS: path to tcmalloc_props}" "$SB/real/tcprops"
  shim tcprops
  user_config 'allocator = "tcmalloc"\n[tcmalloc]\nmax_total_thread_cache_bytes = 4194304\n'
  out=$(tcprops release tcmalloc.pageheap_unmapped_bytes tcmalloc.max_total_thread_cache_bytes)
  expect_contains "$out" "tcmalloc.max_total_thread_cache_bytes=4194304" "tcmalloc read its thread cache bound"
  [[ "$out" != *"pageheap_unmapped_bytes=0"* ]] || fail "without the option, tcmalloc returns the freed block: $out"
  user_config 'allocator = "tcmalloc"\n[tcmalloc]\ndisable_memory_release = true\n'
  out=$(tcprops release tcmalloc.pageheap_unmapped_bytes)
  expect_eq "$out" "tcmalloc.pageheap_unmapped_bytes=0" "with disable_memory_release, nothing is returned"
}

test_tbbmalloc_reads_use_huge_pages() {
  need_lib libtbbmalloc_proxy.so.2
  user_config 'allocator = "tbbmalloc"\n[tbbmalloc]\nuse_huge_pages = true\nset_huge_size_threshold = 16777216\n[env]\nTBB_VERSION = "1"\n'
  out=$(mytool exit 0 2>&1)
  expect_contains "$out" "TBBmalloc: huge pages	requested" "tbbmalloc read TBB_MALLOC_USE_HUGE_PAGES"
  expect_eq "$(mytool env TBB_MALLOC_SET_HUGE_SIZE_THRESHOLD 2>/dev/null)" "TBB_MALLOC_SET_HUGE_SIZE_THRESHOLD=16777216" "the threshold as a plain number"
}

test_a_project_file_cannot_write_a_second_pair_into_MALLOC_CONF() {
  need_lib libjemalloc.so.2
  printf 'allocator = "jemalloc"\n[jemalloc]\nnarenas_ratio = "0.5,prof:true"\n' > .edashim.toml
  out=$(mytool env MALLOC_CONF 2> err.txt) || true
  expect_not_contains "$out" "prof" "the value never reaches MALLOC_CONF"
  expect_contains "$(cat err.txt)" ".edashim.toml:3" "the error names the file and line"
  expect_contains "$(cat err.txt)" "expected a decimal number" "and what would be right"
}

# Issue 17 item 4: every shipped named profile (the lean ones too) passes --strict's checks against
# the allocators installed here, and runs the tool without a word.
test_every_shipped_named_profile_runs_strict_and_silent() {
  names=$("$BIN" profiles | awk '$2 ~ /\/named\/[^/]*\.toml$/ {print $1}')
  [[ "$names" == *lean* ]] || fail "no shipped lean profile listed: [$names]"
  for n in $names; do
    out=$("$BIN" run --strict -p "$n" -- "$HELPER" exit 0 2>&1) || fail "profile $n: status $?: $out"
    expect_eq "$out" "" "profile $n runs without a word"
  done
}

# The lean jemalloc setting reaches jemalloc itself: its stats_print lists what it applied.
test_jemalloc_lean_is_applied_by_jemalloc() {
  need_lib libjemalloc.so.2
  lean=$("$BIN" profiles | awk '$1 == "jemalloc-lean" {print $2}')
  [ -n "$lean" ] || skip "no jemalloc-lean profile shipped"
  user_config '[jemalloc]\nstats_print = true\n'
  out=$("$BIN" run -p jemalloc-lean -- "$HELPER" exit 0 2>&1)
  # Each key = value of the profile's [jemalloc] table, as jemalloc reports it applied.
  while IFS=' =' read -r key value; do
    expect_contains "$out" "opt.$key: $value" "jemalloc applied $key from jemalloc-lean"
  done < <(sed -n '/^\[jemalloc\]/,/^\[/{/^[a-z_]* *=/p}' "$lean")
  expect_not_contains "$out" "Invalid conf" "jemalloc accepted every pair"
}

run_suite "$@"
