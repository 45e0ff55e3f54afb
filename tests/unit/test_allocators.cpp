#include <catch2/catch.hpp>
#include <unistd.h>

#include "alloc/allocators.hpp"
#include "util/fs.hpp"
#include "temp_dir.hpp"

TEST_CASE("Debian's allocator libraries are found on this machine, not at one hard-coded path", "[alloc]") {
  for (const char* name : {"mimalloc", "jemalloc", "tcmalloc", "tbbmalloc"}) {
    INFO(name);
    auto* a = alloc::find(name);
    REQUIRE(a);
    auto lib = alloc::locate(*a, alloc::library_dirs());
    REQUIRE(lib);
    CHECK(lib->find("_debug") == std::string::npos);
    CHECK(alloc::allocator_of_library(*lib) == name);
  }
}

TEST_CASE("The tbbmalloc preload is the proxy, which replaces malloc", "[alloc]") {
  auto lib = alloc::locate(*alloc::find("tbbmalloc"), alloc::library_dirs());
  REQUIRE(lib);
  CHECK(lib->find("libtbbmalloc_proxy.so") != std::string::npos);
}

TEST_CASE("Debian 12's mimalloc is 2.0", "[alloc]") {
  auto lib = alloc::locate(*alloc::find("mimalloc"), alloc::library_dirs());
  REQUIRE(lib);
  CHECK(alloc::version_of(*lib) == "2.0");
}

TEST_CASE("mimalloc option names are checked against the installed version", "[alloc]") {
  using alloc::OptionValue;
  CHECK_FALSE(alloc::check_option("mimalloc", "2.0", "decommit_delay", OptionValue(int64_t(100))));
  auto renamed = alloc::check_option("mimalloc", "2.0", "purge_delay", OptionValue(int64_t(100)));
  REQUIRE(renamed);
  CHECK(renamed->find("mimalloc 2.0") != std::string::npos);
  CHECK(renamed->find("'decommit_delay'") != std::string::npos);
  auto back = alloc::check_option("mimalloc", "2.1", "decommit_delay", OptionValue(int64_t(100)));
  REQUIRE(back);
  CHECK(back->find("'purge_delay'") != std::string::npos);
  auto wrong_type = alloc::check_option("mimalloc", "2.0", "eager_commit_delay", OptionValue(std::string("x")));
  REQUIRE(wrong_type);
  CHECK(wrong_type->find("expected an integer") != std::string::npos);
}

TEST_CASE("jemalloc, tcmalloc, tbbmalloc and glibc options have their own lists", "[alloc]") {
  using alloc::OptionValue;
  CHECK_FALSE(alloc::check_option("jemalloc", "", "dirty_decay_ms", OptionValue(int64_t(1000))));
  CHECK(alloc::check_option("jemalloc", "", "dirty_decay", OptionValue(int64_t(1000))));
  CHECK_FALSE(alloc::check_option("tcmalloc", "", "release_rate", OptionValue(0.5)));
  CHECK_FALSE(alloc::check_option("tbbmalloc", "", "use_huge_pages", OptionValue(true)));
  CHECK_FALSE(alloc::check_option("glibc", "", "mmap_threshold", OptionValue(int64_t(65536))));
  auto typo = alloc::check_option("glibc", "", "mmap_treshold", OptionValue(int64_t(65536)));
  REQUIRE(typo);
  CHECK(typo->find("did you mean 'mmap_threshold'?") != std::string::npos);
}

// Issue 12 item 6: the first directory came from dladdr of the executable (argv[0] for the
// main program, resolved against the cwd). The list is fixed absolute directories.
TEST_CASE("Allocator library directories are fixed absolute paths, never the cwd or the program's", "[alloc][hardening]") {
  char cwd[4096];
  REQUIRE(::getcwd(cwd, sizeof cwd));
  std::string self_dir = util::dirname(util::self_exe());
  for (const auto& d : alloc::library_dirs()) {
    INFO(d);
    CHECK(d[0] == '/');
    CHECK(d != cwd);
    CHECK(d != self_dir);
  }
  CHECK(alloc::library_dirs().size() >= 5);
}

// Issue 12 item 1: each option's value has a grammar; a string is only ever one of its words
// or a size, never a list for the allocator to parse.
TEST_CASE("Option values are checked against their grammar in every family", "[alloc][options]") {
  using alloc::OptionValue;
  auto s = [](const char* v) { return OptionValue(std::string(v)); };
  auto i = [](int64_t v) { return OptionValue(v); };
  CHECK_FALSE(alloc::check_option("jemalloc", "", "thp", s("never")));
  CHECK(alloc::check_option("jemalloc", "", "thp", s("never,prof:true")));
  CHECK(alloc::check_option("jemalloc", "", "thp", OptionValue(true)));
  CHECK_FALSE(alloc::check_option("jemalloc", "", "dirty_decay_ms", i(-1)));
  CHECK(alloc::check_option("jemalloc", "", "dirty_decay_ms", i(-2)));
  CHECK(alloc::check_option("jemalloc", "", "tcache_max", i((8 << 20) + 1)));
  CHECK_FALSE(alloc::check_option("mimalloc", "2.0.9", "reserve_os_memory", s("512MiB")));
  CHECK_FALSE(alloc::check_option("mimalloc", "2.0.9", "reserve_os_memory", i(1024)));
  for (const char* bad : {"", "M", "1T", "1 G", "1G,x", "-1", "1GiBB", "0x10"})
    CHECK(alloc::check_option("mimalloc", "2.0.9", "reserve_os_memory", s(bad)));
  CHECK(alloc::check_option("mimalloc", "2.0.9", "eager_commit", i(1)));  // a boolean only
  CHECK_FALSE(alloc::check_option("mimalloc", "2.1", "arena_eager_commit", i(2)));
  CHECK(alloc::check_option("mimalloc", "2.1", "arena_eager_commit", i(3)));
  CHECK_FALSE(alloc::check_option("tcmalloc", "", "release_rate", i(10)));
  CHECK(alloc::check_option("tcmalloc", "", "release_rate", OptionValue(-0.5)));
  CHECK(alloc::check_option("tcmalloc", "", "release_rate", s("1")));
  CHECK(alloc::check_option("tbbmalloc", "", "set_huge_size_threshold", i(-1)));
  CHECK(alloc::check_option("glibc", "", "arena_max", i(0)));
  CHECK(*alloc::check_option("glibc", "", "perturb", i(256)) == "[glibc] perturb is 256, expected an integer from 0 to 255");
  // Restricted names, by family; the same name elsewhere is not.
  CHECK(alloc::restricted_option("jemalloc", "prof_prefix"));
  CHECK(alloc::restricted_option("jemalloc", "Abort_Conf"));
  CHECK(alloc::restricted_option("jemalloc", "confirm_conf"));
  CHECK_FALSE(alloc::restricted_option("jemalloc", "background_thread"));
  CHECK(alloc::restricted_option("glibc_fallback", "check"));
  CHECK_FALSE(alloc::restricted_option("mimalloc", "verbose"));
  CHECK_FALSE(alloc::restricted_option("tbbmalloc", "use_huge_pages"));
}

// Issue 17 item 3: the options that move peak memory on Debian 12's allocators, with the bounds
// of each library's own parser (docs/allocators.md, "Tuning for memory"), and nothing else.
TEST_CASE("jemalloc 5.3 memory options are accepted within its parser's bounds", "[alloc][options]") {
  using alloc::OptionValue;
  auto i = [](int64_t v) { return OptionValue(v); };
  auto s = [](const char* v) { return OptionValue(std::string(v)); };
  auto ok = [](const char* name, const OptionValue& v) { return !alloc::check_option("jemalloc", "", name, v); };
  CHECK(ok("retain", OptionValue(false)));
  CHECK(ok("narenas_ratio", OptionValue(0.5)));
  CHECK(ok("narenas_ratio", i(2)));
  CHECK_FALSE(ok("narenas_ratio", OptionValue(1e-5)));  // fxp_parse takes no exponent
  CHECK_FALSE(ok("narenas_ratio", s("0.5,prof:true")));
  CHECK(ok("dss", s("disabled")));
  CHECK_FALSE(ok("dss", s("tertiary")));
  CHECK(ok("tcache_nslots_small_max", i(10)));
  CHECK_FALSE(ok("tcache_nslots_small_max", i(2049)));
  CHECK(ok("tcache_nslots_large", i(1)));
  CHECK_FALSE(ok("tcache_nslots_large", i(0)));
  CHECK(ok("lg_tcache_nslots_mul", i(-3)));
  CHECK_FALSE(ok("lg_tcache_nslots_mul", i(17)));
  CHECK(ok("tcache_gc_incr_bytes", i(1024)));
  CHECK_FALSE(ok("tcache_gc_incr_bytes", i(1023)));
  CHECK(ok("tcache_gc_delay_bytes", i(0)));
  CHECK(ok("lg_tcache_flush_small_div", i(16)));
  CHECK_FALSE(ok("lg_tcache_flush_large_div", i(0)));
  CHECK(ok("hpa", OptionValue(true)));
  CHECK(ok("hpa_dirty_mult", OptionValue(0.25)));
  CHECK_FALSE(ok("hpa_dirty_mult", OptionValue(-0.5)));
  CHECK(ok("hpa_slab_max_alloc", i(65536)));
  CHECK_FALSE(ok("hpa_slab_max_alloc", i((2 << 20) + 1)));
  CHECK_FALSE(ok("hpa_hugification_threshold_ratio", OptionValue(1.5)));
  CHECK(ok("hpa_sec_max_bytes", i(262144)));
  CHECK_FALSE(ok("hpa_sec_max_bytes", i(100)));
  CHECK(ok("hpa_sec_batch_fill_extra", i(0)));
  // Refused by jemalloc 5.3.0 itself ("Invalid conf pair"), so refused here, with a hint.
  auto oblivious = alloc::check_option("jemalloc", "", "cache_oblivious", OptionValue(false));
  REQUIRE(oblivious);
  CHECK(oblivious->find("[jemalloc] has no option 'cache_oblivious'") == 0);
  auto typo = alloc::check_option("jemalloc", "", "tcache_nslot_large", i(4));
  REQUIRE(typo);
  CHECK(typo->find("did you mean 'tcache_nslots_large'?") != std::string::npos);
}

TEST_CASE("gperftools 2.10 memory options carry the names its library reads", "[alloc][options]") {
  using alloc::OptionValue;
  CHECK_FALSE(alloc::check_option("tcmalloc", "", "disable_memory_release", OptionValue(true)));
  CHECK(alloc::check_option("tcmalloc", "", "disable_memory_release", OptionValue(int64_t(2))));
  CHECK_FALSE(alloc::check_option("tcmalloc", "", "transfer_num_obj", OptionValue(int64_t(64))));
  CHECK(alloc::check_option("tcmalloc", "", "transfer_num_obj", OptionValue(int64_t(0))));
  // The old table had transfer_num_objects, which set TCMALLOC_TRANSFER_NUM_OBJECTS: read by nobody.
  auto old = alloc::check_option("tcmalloc", "", "transfer_num_objects", OptionValue(int64_t(64)));
  REQUIRE(old);
  CHECK(old->find("write 'transfer_num_obj'") != std::string::npos);
  // Allocating from hugetlbfs files or /dev/mem is not for an untrusted project file.
  CHECK(alloc::restricted_option("tcmalloc", "memfs_malloc_path"));
  CHECK(alloc::restricted_option("tcmalloc", "devmem_start"));
  // Nor is keeping freed memory for good (tests/unit/test_config_keys.cpp has every such option).
  CHECK(alloc::restricted_option("tcmalloc", "disable_memory_release"));
  CHECK_FALSE(alloc::restricted_option("tcmalloc", "aggressive_decommit"));
}

TEST_CASE("mimalloc 2.0 takes its legacy names, tbbmalloc only its two variables", "[alloc][options]") {
  using alloc::OptionValue;
  CHECK_FALSE(alloc::check_option("mimalloc", "2.0", "abandoned_page_reset", OptionValue(true)));
  CHECK(alloc::check_option("mimalloc", "2.1", "abandoned_page_reset", OptionValue(true)));
  CHECK_FALSE(alloc::check_option("tbbmalloc", "", "set_huge_size_threshold", OptionValue(int64_t(8 << 20))));
  // The large-object cache's factors are template arguments in oneTBB 2021.8: no variable.
  auto loc = alloc::check_option("tbbmalloc", "", "set_soft_heap_limit", OptionValue(int64_t(1 << 30)));
  REQUIRE(loc);
  CHECK(loc->find("[tbbmalloc] has no option 'set_soft_heap_limit'") == 0);
}

TEST_CASE("mimalloc 2.0's decommit delays have no 'never' value, 2.1's purge delay does", "[alloc][options]") {
  using alloc::OptionValue;
  auto never = alloc::check_option("mimalloc", "2.0.9", "decommit_delay", OptionValue(int64_t(-1)));
  REQUIRE(never);
  CHECK(never->find("expected an integer from 0 to") != std::string::npos);
  CHECK(alloc::check_option("mimalloc", "2.0.9", "segment_decommit_delay", OptionValue(int64_t(-1))));
  CHECK_FALSE(alloc::check_option("mimalloc", "2.1.2", "purge_delay", OptionValue(int64_t(-1))));
}

TEST_CASE("A run prefers edashim's own build, then library_dirs, then the system's, and says whose", "[alloc]") {
  TempDir t;
  t.write("own/libjemalloc.so.2", "x");
  t.write("site/libjemalloc.so.2", "x");
  t.write("site/libtcmalloc_minimal.so.4", "x");
  const auto& jemalloc = *alloc::find("jemalloc");
  auto own = alloc::locate_preferring_own(jemalloc, t.path + "/own", {t.path + "/site"});
  REQUIRE(own);
  CHECK(own->library == t.path + "/own/libjemalloc.so.2");
  CHECK(own->build == alloc::kBuildEdashim);
  // No build of its own (tcmalloc, or a tree built without the sources): library_dirs, then the system's.
  auto site = alloc::locate_preferring_own(*alloc::find("tcmalloc"), t.path + "/own", {t.path + "/site"});
  REQUIRE(site);
  CHECK(site->library == t.path + "/site/libtcmalloc_minimal.so.4");
  CHECK(site->build == alloc::kBuildLibraryDirs);
  auto system = alloc::locate_preferring_own(jemalloc, t.path + "/none", {});
  REQUIRE(system);  // Debian's libjemalloc2 (install/packages.txt)
  CHECK(system->build == alloc::kBuildSystem);
  CHECK(system->library.rfind(t.path, 0) != 0);
  CHECK(alloc::locate_preferring_own(jemalloc, "", {})->build == alloc::kBuildSystem);
  // Each soname of edashim's directory before any elsewhere: a system libmimalloc.so.3 does not
  // win over edashim's libmimalloc.so.2.
  t.write("own/libmimalloc.so.2", "x");
  t.write("site/libmimalloc.so.3", "x");
  auto mi = alloc::locate_preferring_own(*alloc::find("mimalloc"), t.path + "/own", {t.path + "/site"});
  REQUIRE(mi);
  CHECK(mi->library == t.path + "/own/libmimalloc.so.2");
  CHECK(alloc::build_in_words(alloc::kBuildEdashim) == "edashim's build");
  CHECK(alloc::build_in_words(alloc::kBuildSystem) == "the system's");
}

TEST_CASE("edashim's builds for a newer glibc are the glibc-X.Y directories beside its own that hold the library",
          "[alloc]") {
  TempDir t;
  std::string own = t.write("own/libjemalloc.so.2", "x");
  CHECK(alloc::builds_for_newer_glibc(own).empty());
  t.write("own/glibc-2.34/libjemalloc.so.2", "x");
  t.write("own/glibc-2.40/libmimalloc.so.2", "x");  // another library's
  t.write("own/glibc-/libjemalloc.so.2", "x");      // no version
  t.write("own/notglibc-2.35/libjemalloc.so.2", "x");
  auto builds = alloc::builds_for_newer_glibc(own);
  REQUIRE(builds.size() == 1);
  CHECK(builds[0].first == t.path + "/own/glibc-2.34/libjemalloc.so.2");
  CHECK(builds[0].second == "GLIBC_2.34");
  t.write("own/glibc-2.39/libjemalloc.so.2", "x");
  CHECK(alloc::builds_for_newer_glibc(own).size() == 2);
  CHECK(alloc::builds_for_newer_glibc(t.path + "/none/libjemalloc.so.2").empty());
}
