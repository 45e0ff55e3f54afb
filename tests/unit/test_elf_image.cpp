#include <elf.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "elf/elf_image.hpp"
#include "proof_artefacts.hpp"

TEST_CASE("A dynamic executable has a PT_INTERP loader and needs libc", "[elf]") {
  auto bytes = proof_bytes("proof_dynamic");
  auto info = elf::parse(bytes);
  REQUIRE(info);
  CHECK(info->has_interp);
  CHECK(info->interp.find("ld-linux") != std::string::npos);
  CHECK(std::find(info->needed.begin(), info->needed.end(), "libc.so.6") != info->needed.end());
  CHECK_FALSE(elf::defines_function(bytes, "malloc"));  // it imports malloc from libc
  auto sym = elf::find_dynamic_symbol(bytes, "malloc");
  REQUIRE(sym);
  CHECK_FALSE(sym->defined);
}

TEST_CASE("Static and static-pie executables have no PT_INTERP, and static-pie is ET_DYN", "[elf]") {
  auto s = elf::parse(proof_bytes("proof_static"));
  REQUIRE(s);
  CHECK_FALSE(s->has_interp);
  CHECK(s->type == ET_EXEC);
  auto pie = elf::parse(proof_bytes("proof_static_pie"));
  REQUIRE(pie);
  CHECK_FALSE(pie->has_interp);
  CHECK(pie->type == ET_DYN);
  CHECK(pie->has_dynamic);
}

TEST_CASE("An executable with tcmalloc linked in defines malloc in its dynamic symbol table", "[elf]") {
  auto bytes = proof_bytes("proof_own_malloc");
  CHECK(elf::defines_function(bytes, "malloc"));
  CHECK(elf::defines_function(bytes, "free"));
  CHECK_FALSE(elf::defines_function(bytes, "no_such_function_anywhere"));
}

TEST_CASE("Without section headers the dynamic symbol table is found through DT_GNU_HASH", "[elf]") {
  auto bytes = proof_bytes("proof_own_malloc");
  REQUIRE(bytes.size() > sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  eh.e_shnum = 0;  // as `sstrip` leaves a binary
  eh.e_shoff = 0;
  std::memcpy(bytes.data(), &eh, sizeof eh);
  CHECK(elf::defines_function(bytes, "malloc"));
}

TEST_CASE("The TBB-linked program needs libtbbmalloc_proxy.so.2", "[elf]") {
  auto info = elf::parse(proof_bytes("proof_tbb"));
  REQUIRE(info);
  CHECK(std::find(info->needed.begin(), info->needed.end(), "libtbbmalloc_proxy.so.2") != info->needed.end());
}

TEST_CASE("Truncated and corrupted images give answers or nothing, never a crash", "[elf]") {
  auto bytes = proof_bytes("proof_own_malloc");
  REQUIRE(bytes.size() > 8192);
  for (size_t n = 0; n < 8192; n += 7) {
    std::string_view cut(bytes.data(), n);
    (void)elf::parse(cut);
    (void)elf::defines_function(cut, "malloc");
  }
  CHECK_FALSE(elf::parse("not an elf file"));
  std::string garbage = "\x7f" "ELF\x02\x01\x01";
  garbage.resize(4096, '\xff');
  (void)elf::parse(garbage);
  CHECK_FALSE(elf::defines_function(garbage, "malloc"));
  // Program headers pointing past the end of the file.
  std::string hostile = bytes.substr(0, 4096);
  Elf64_Ehdr eh;
  std::memcpy(&eh, hostile.data(), sizeof eh);
  eh.e_phoff = 0xfffffffffffff000ull;
  std::memcpy(hostile.data(), &eh, sizeof eh);
  auto info = elf::parse(hostile);
  if (info) CHECK_FALSE(info->has_interp);
}

TEST_CASE("The build-id is the one readelf reports, and absent where there is no note", "[elf]") {
  auto bytes = proof_bytes("proof_dynamic");
  auto id = elf::build_id(bytes);
  REQUIRE(id);
  std::string cmd = std::string("readelf -n ") + EDASHIM_PROOF_DIR + "/proof_dynamic | sed -n 's/.*Build ID: //p'";
  std::string expected;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) expected += buf;
    ::pclose(p);
  }
  while (!expected.empty() && (expected.back() == '\n' || expected.back() == ' ')) expected.pop_back();
  CHECK(*id == expected);
  CHECK(id->size() == 40);  // sha1, gcc's default
  CHECK_FALSE(elf::build_id(bytes.substr(0, 64)));   // headers only: no notes within reach
  CHECK_FALSE(elf::build_id("#!/bin/sh\n"));
}
