// alloc/registry: one entry per allocator, and the lookups every other folder makes through it.
#include <catch2/catch.hpp>

#include <string>

#include "alloc/allocators.hpp"
#include "alloc/options.hpp"
#include "alloc/registry.hpp"
#include "bench/sweep.hpp"
#include "config/keys.hpp"

namespace {
bool has_allocator_library(const alloc::Family& f) { return !f.sonames.empty(); }
}  // namespace

TEST_CASE("Registry: every allocator entry says everything edashim needs of it", "[alloc][registry]") {
  int allocators = 0;
  for (const auto& f : alloc::families()) {
    INFO(std::string(f.name));
    CHECK_FALSE(f.name.empty());
    CHECK_FALSE(f.variable.empty());
    CHECK(f.options);  // its options' grammar and restrictions
    if (f.encoding == alloc::Encoding::kOneVariable) {
      CHECK(f.assign != '\0');
      CHECK(f.separator != '\0');
      CHECK(f.assign != f.separator);
    }
    if (!has_allocator_library(f)) {
      // glibc's tunables: nothing to preload, install or probe.
      CHECK(f.packages.empty());
      CHECK(f.probe == alloc::VersionProbe::kNone);
      continue;
    }
    ++allocators;
    CHECK_FALSE(f.file_prefix.empty());
    CHECK_FALSE(f.packages.empty());
    CHECK(f.probe != alloc::VersionProbe::kNone);
    if (f.probe == alloc::VersionProbe::kReturnedConstant || f.probe == alloc::VersionProbe::kAfterMarker)
      CHECK_FALSE(f.version_marker.empty());
    for (auto soname : f.sonames) {
      INFO(std::string(soname));
      CHECK(soname.substr(0, f.file_prefix.size()) == f.file_prefix);
      CHECK(soname.find("_debug") == std::string_view::npos);
      CHECK(soname.find(".so") != std::string_view::npos);
    }
  }
  CHECK(allocators == 4);
}

TEST_CASE("Registry: names, option families and config keys are the same list", "[alloc][registry]") {
  const auto& names = alloc::option_families();
  REQUIRE(names.size() == alloc::families().size());
  for (size_t i = 0; i < names.size(); ++i) {
    CHECK(names[i] == alloc::families()[i].name);
    CHECK(config::find_key(names[i]));
    CHECK(alloc::find_family(names[i]) == &alloc::families()[i]);
  }
  // Every allocator with a library is one a profile can name, and alloc::find knows.
  for (const auto& f : alloc::families())
    if (has_allocator_library(f)) {
      REQUIRE(alloc::find(f.name));
      CHECK(alloc::find(f.name)->sonames.front() == f.sonames.front());
    }
}

TEST_CASE("Registry: a library is recognised by its file name, in any directory", "[alloc][registry]") {
  for (const auto& f : alloc::families())
    for (auto soname : f.sonames) {
      INFO(std::string(soname));
      const alloc::Family* found = alloc::family_of_library("/opt/x/lib/" + std::string(soname));
      REQUIRE(found);
      CHECK(found->name == f.name);
      CHECK(alloc::allocator_of_library(std::string(soname)) == std::string(f.name));
    }
  // libtbbmalloc.so.2 alone does not replace malloc: it is not the tbbmalloc allocator.
  CHECK_FALSE(alloc::family_of_library("/usr/lib/libtbbmalloc.so.2"));
  CHECK_FALSE(alloc::family_of_library("/usr/lib/libc.so.6"));
  CHECK_FALSE(alloc::family_of_library("/libmimalloc/libc.so.6"));  // the file name, not a directory
  CHECK(alloc::allocator_of_library("/usr/lib/libhoard.so") == "hoard");
  CHECK(alloc::allocator_of_library("/usr/lib/libc.so.6").empty());
}

namespace {
util::Distribution debian(const char* version, const char* name = "") { return {"debian", version, name}; }
}  // namespace

TEST_CASE("Registry: the package of each allocator where its release has one, and none for an unknown name", "[alloc][registry]") {
  CHECK(alloc::install_command("mimalloc", debian("12")) == "apt-get install libmimalloc2.0");
  CHECK(alloc::install_command("jemalloc", debian("12")) == "apt-get install libjemalloc2");
  CHECK(alloc::install_command("tcmalloc", debian("12")) == "apt-get install libtcmalloc-minimal4");
  CHECK(alloc::install_command("tbbmalloc", debian("12")) == "apt-get install libtbbmalloc2");
  // Issue 47: Debian 11 has no mimalloc and no libtbbmalloc2 (its proxy is in libtbb2); 13
  // renamed mimalloc's and tcmalloc's.
  CHECK_FALSE(alloc::install_command("mimalloc", debian("11")).has_value());
  CHECK(alloc::install_command("tbbmalloc", debian("11")) == "apt-get install libtbb2");
  CHECK(alloc::install_command("jemalloc", debian("11")) == "apt-get install libjemalloc2");
  CHECK(alloc::install_command("mimalloc", debian("13")) == "apt-get install libmimalloc3");
  CHECK(alloc::install_command("tcmalloc", debian("13")) == "apt-get install libtcmalloc-minimal4t64");
  // A release or distribution nobody checked gets no package name, not Debian 12's.
  CHECK_FALSE(alloc::install_command("jemalloc", debian("")).has_value());
  CHECK_FALSE(alloc::install_command("jemalloc", debian("10")).has_value());
  CHECK_FALSE(alloc::install_command("jemalloc", {"rhel", "8.9", "Red Hat Enterprise Linux 8.9 (Ootpa)"}).has_value());
  CHECK_FALSE(alloc::install_command("jemalloc", {"ubuntu", "12", "Ubuntu"}).has_value());
  CHECK_FALSE(alloc::install_command("jemalloc", {}).has_value());
  // pipeline::package_of answered libtbbmalloc2 for any name it did not know.
  for (const char* name : {"snmalloc", "", "system", "glibc"}) CHECK_FALSE(alloc::install_command(name, debian("12")).has_value());
  CHECK_FALSE(alloc::find_family("tbbmalloc2"));
  CHECK_FALSE(alloc::find_family("Mimalloc"));
}

TEST_CASE("Registry: the advice for a missing allocator fits the node, and always names library_dirs", "[alloc][registry]") {
  auto known = alloc::install_advice("jemalloc", debian("12", "Debian GNU/Linux 12 (bookworm)"));
  CHECK(known.find("Install it: apt-get install libjemalloc2") == 0);
  CHECK(known.find("libjemalloc.so.2") != std::string::npos);
  CHECK(known.find("library_dirs") != std::string::npos);
  auto none = alloc::install_advice("mimalloc", debian("11", "Debian GNU/Linux 11 (bullseye)"));
  CHECK(none.find("Debian GNU/Linux 11 (bullseye) has no package of mimalloc") == 0);
  CHECK(none.find("apt-get") == std::string::npos);
  CHECK(none.find("library_dirs") != std::string::npos);
  auto rhel = alloc::install_advice("tcmalloc", {"rhel", "9.4", "Red Hat Enterprise Linux 9.4 (Plow)"});
  CHECK(rhel.find("No package of tcmalloc is known for Red Hat Enterprise Linux 9.4 (Plow)") == 0);
  CHECK(rhel.find("install") == std::string::npos);  // neither apt-get install nor a guessed dnf line
  CHECK(rhel.find("libtcmalloc_minimal.so.4") != std::string::npos);
  CHECK(alloc::install_advice("jemalloc", {}).find("known for this system") != std::string::npos);
  CHECK(alloc::install_advice("snmalloc", debian("12")) == "No package is known for 'snmalloc'.");
}

TEST_CASE("os-release: the distribution, its release and its name, quoted or not", "[alloc][registry]") {
  auto d = util::distribution_of_os_release(
      "PRETTY_NAME=\"Debian GNU/Linux 11 (bullseye)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"11\"\n"
      "VERSION=\"11 (bullseye)\"\nID=debian\nHOME_URL=\"https://www.debian.org/\"\n");
  CHECK(d.id == "debian");
  CHECK(d.version_id == "11");
  CHECK(d.name == "Debian GNU/Linux 11 (bullseye)");
  auto rocky = util::distribution_of_os_release("ID='rocky'\r\nVERSION_ID='8.9'\r\nID_LIKE=\"rhel centos fedora\"\n");
  CHECK(rocky.id == "rocky");
  CHECK(rocky.version_id == "8.9");
  CHECK(rocky.name == "rocky 8.9");
  // Debian's testing has no VERSION_ID: a rolling release, no release's packages assumed.
  auto testing = util::distribution_of_os_release("PRETTY_NAME=\"Debian GNU/Linux trixie/sid\"\nID=debian\n");
  CHECK(testing.version_id.empty());
  CHECK_FALSE(alloc::install_command("jemalloc", testing).has_value());
  CHECK(util::distribution_of_os_release("").id.empty());
  CHECK(util::distribution_of_os_release("garbage\n=\nID\n").id.empty());
}

TEST_CASE("Registry: each family's options are checked by its own rules", "[alloc][registry]") {
  using alloc::OptionValue;
  // A name one family restricts is no restriction in another.
  CHECK(alloc::restricted_option("jemalloc", "prof_prefix"));
  CHECK_FALSE(alloc::restricted_option("mimalloc", "prof_prefix"));
  CHECK(alloc::restricted_option("mimalloc", "disallow_os_alloc"));
  CHECK(alloc::restricted_option("tcmalloc", "heap_limit_mb"));
  CHECK(alloc::restricted_option("glibc_fallback", "check"));
  CHECK_FALSE(alloc::restricted_option("tbbmalloc", "check"));
  CHECK_FALSE(alloc::restricted_option("hoard", "check"));
  CHECK(alloc::known_option("glibc_fallback", "top_pad"));
  CHECK_FALSE(alloc::known_option("hoard", "top_pad"));
  auto unknown = alloc::check_option("hoard", "", "x", OptionValue(true));
  REQUIRE(unknown);
  CHECK(unknown->find("[hoard] has no option 'x'") == 0);
  auto renamed = alloc::check_option("tcmalloc", "", "transfer_num_objects", OptionValue(int64_t(4)));
  REQUIRE(renamed);
  CHECK(renamed->find("write 'transfer_num_obj'") != std::string::npos);
}

TEST_CASE("Registry: \"system\" is configured by the glibc family", "[alloc][registry]") {
  CHECK(alloc::options_family_of("system") == "glibc");
  CHECK(alloc::options_family_of("jemalloc") == "jemalloc");
}

TEST_CASE("Registry: options are encoded as each family reads them", "[alloc][registry]") {
  using alloc::OptionValue;
  auto encode = [](const char* family, std::vector<std::pair<std::string, OptionValue>> options) {
    const alloc::Family* f = alloc::find_family(family);
    REQUIRE(f);
    return alloc::encode_options(*f, options);
  };
  using Vars = std::vector<std::pair<std::string, std::string>>;
  CHECK(encode("mimalloc", {{"eager_commit_delay", OptionValue(int64_t(0))}, {"large_os_pages", OptionValue(true)}}) ==
        Vars{{"MIMALLOC_EAGER_COMMIT_DELAY", "0"}, {"MIMALLOC_LARGE_OS_PAGES", "1"}});
  CHECK(encode("jemalloc", {{"background_thread", OptionValue(true)}, {"narenas", OptionValue(int64_t(4))}}) ==
        Vars{{"MALLOC_CONF", "background_thread:true,narenas:4"}});
  CHECK(encode("tcmalloc", {{"release_rate", OptionValue(0.5)}}) == Vars{{"TCMALLOC_RELEASE_RATE", "0.5"}});
  CHECK(encode("tbbmalloc", {{"use_huge_pages", OptionValue(true)}}) == Vars{{"TBB_MALLOC_USE_HUGE_PAGES", "1"}});
  Vars glibc{{"GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536:glibc.malloc.top_pad=0"}};
  std::vector<std::pair<std::string, OptionValue>> tunables{{"mmap_threshold", OptionValue(int64_t(65536))},
                                                            {"top_pad", OptionValue(int64_t(0))}};
  CHECK(encode("glibc", tunables) == glibc);
  CHECK(encode("glibc_fallback", tunables) == glibc);
  CHECK(encode("jemalloc", {}).empty());
  // A name no option rule allows is never encoded: '=' would make another variable, ',' or ':'
  // another option (the environment fuzzer found "MIMALLOC_]\\=..." set beside an [env] unset).
  CHECK(encode("mimalloc", {{"verbose=1", OptionValue(true)}, {"show_stats", OptionValue(true)}}) ==
        Vars{{"MIMALLOC_SHOW_STATS", "1"}});
  CHECK(encode("jemalloc", {{"narenas:1,x", OptionValue(int64_t(4))}}).empty());
  // Only mimalloc's variables must come first (2.0 reads only the first 256 entries).
  for (const auto& f : alloc::families()) CHECK(f.goes_first == (f.name == "mimalloc"));
}

TEST_CASE("Registry: tune sweeps the options of every allocator family but the fallback", "[alloc][registry][bench]") {
  for (const auto& f : alloc::families()) {
    INFO(std::string(f.name));
    auto o = bench::parse_tune_option(std::string(f.name) + ".x=1");
    CHECK(o.ok() == !f.fallback);
  }
  auto hoard = bench::parse_tune_option("hoard.x=1");
  REQUIRE_FALSE(hoard.ok());
  CHECK(hoard.error().find("(mimalloc, jemalloc, tcmalloc, tbbmalloc, glibc)") != std::string::npos);
}
