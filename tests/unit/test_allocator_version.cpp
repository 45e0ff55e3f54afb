#include <elf.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "alloc/allocators.hpp"
#include "alloc/version.hpp"
#include "elf/elf_image.hpp"
#include "config/load.hpp"
#include "proof_artefacts.hpp"

namespace {
std::string lib(const std::string& name) { return std::string(kLibDir) + "/" + name; }
std::string bytes_of(const std::string& path) { return util::read_file(path, 64 << 20).value_or(""); }
}  // namespace

TEST_CASE("Versions come from the libraries' own bytes (Debian 12)", "[version]") {
  CHECK(alloc::version_from_image("mimalloc", bytes_of(lib("libmimalloc.so.2"))) == "2.0.9");
  CHECK(alloc::version_from_image("jemalloc", bytes_of(lib("libjemalloc.so.2"))) == "5.3.0");
  CHECK(alloc::version_from_image("tcmalloc", bytes_of(lib("libtcmalloc_minimal.so.4"))) == "2.10");
  CHECK(alloc::version_from_image("tbbmalloc", bytes_of(lib("libtbbmalloc.so.2"))) == "2021.8");
  CHECK(alloc::version_from_image("mimalloc", "no code here").empty());
  CHECK(alloc::version_from_image("jemalloc", "1.2-g").empty());
  // Found by fuzz_version: a version part of 60 digits is not a version.
  const std::string sha = "-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c";
  CHECK(alloc::version_from_image("jemalloc", "5.3." + std::string(60, '0') + sha).empty());
  CHECK(alloc::version_from_image("jemalloc", "x5.3.123456789" + sha) == "5.3.123456789");
}

TEST_CASE("detect_version finds the TBB version behind the proxy and remembers versions", "[version]") {
  util::FactCache cache("");
  CHECK(alloc::detect_version(lib("libtbbmalloc_proxy.so.2"), cache) == "2021.8");
  CHECK(alloc::detect_version(lib("libmimalloc.so.2"), cache) == "2.0.9");
  // The second answer comes from the cache: plant a different one and see it returned.
  struct stat st;
  REQUIRE(::stat(lib("libjemalloc.so.2").c_str(), &st) == 0);
  cache.put(util::FileStamp::of(st), {{"version", "9.9.9"}});
  CHECK(alloc::detect_version(lib("libjemalloc.so.2"), cache) == "9.9.9");
}

TEST_CASE("purge_delay on mimalloc 2.0.9 is an error naming the version and decommit_delay", "[version]") {
  auto bad = alloc::check_option("mimalloc", "2.0.9", "purge_delay", alloc::OptionValue(int64_t(10)));
  REQUIRE(bad);
  CHECK(bad->find("2.0.9") != std::string::npos);
  CHECK(bad->find("'decommit_delay'") != std::string::npos);
  CHECK_FALSE(alloc::check_option("mimalloc", "2.0.9", "decommit_delay", alloc::OptionValue(int64_t(10))));
  auto newer = alloc::check_option("mimalloc", "2.1.2", "decommit_delay", alloc::OptionValue(int64_t(10)));
  REQUIRE(newer);
  CHECK(newer->find("'purge_delay'") != std::string::npos);
  CHECK(alloc::check_option("mimalloc", "2.0.9", "arena_eager_commit", alloc::OptionValue(true)));
}

TEST_CASE("[glibc_fallback] is checked as glibc tunables", "[version]") {
  CHECK_FALSE(alloc::check_option("glibc_fallback", "", "mmap_threshold", alloc::OptionValue(int64_t(1 << 20))));
  auto typo = alloc::check_option("glibc_fallback", "", "mmap_treshold", alloc::OptionValue(int64_t(1)));
  REQUIRE(typo);
  CHECK(typo->find("mmap_threshold") != std::string::npos);
  CHECK(alloc::check_option("glibc_fallback", "", "tcache_count", alloc::OptionValue(std::string("x"))));
}

TEST_CASE("The shipped [glibc_fallback] set loads without a problem and passes the check", "[version]") {
  config::LoadRequest req;
  req.shipped_dir = EDASHIM_PROFILES_DIR;
  req.cwd = "/";
  auto loaded = config::load(req);
  for (const auto& p : loaded.problems) FAIL_CHECK(p.str());
  auto it = loaded.settings.options.find("glibc_fallback");
  REQUIRE(it != loaded.settings.options.end());
  CHECK(it->second.count("mmap_threshold"));
  for (const auto& [name, v] : it->second) CHECK_FALSE(alloc::check_option("glibc_fallback", "", name, v.value));
}

// Issue 12 item 7: mi_version's file offset was p_offset + (vaddr - p_vaddr) from the file,
// unchecked; a crafted p_offset wrapped it past `*off + 8 > size` (ASan: heap-buffer-overflow).
TEST_CASE("A crafted segment offset cannot make the version reader read outside the file", "[version][hardening]") {
  std::string image = bytes_of(lib("libmimalloc.so.2"));
  REQUIRE(image.size() > sizeof(Elf64_Ehdr));
  auto sym = elf::find_dynamic_symbol(image, "mi_version");
  REQUIRE(sym);
  Elf64_Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  bool patched = false;
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    size_t at = eh.e_phoff + size_t(i) * sizeof ph;
    std::memcpy(&ph, image.data() + at, sizeof ph);
    if (ph.p_type != PT_LOAD || sym->value < ph.p_vaddr || sym->value - ph.p_vaddr >= ph.p_filesz) continue;
    ph.p_offset = uint64_t(0) - 4 - (sym->value - ph.p_vaddr);  // offset + delta = 2^64 - 4
    std::memcpy(image.data() + at, &ph, sizeof ph);
    patched = true;
  }
  REQUIRE(patched);
  CHECK_FALSE(elf::file_offset(image, sym->value).has_value());
  CHECK(alloc::version_from_image("mimalloc", image).empty());
}
