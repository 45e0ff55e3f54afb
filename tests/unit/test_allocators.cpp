#include <catch2/catch.hpp>
#include <unistd.h>

#include "alloc/allocators.hpp"
#include "util/fs.hpp"

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
