#include <elf.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "elf/elf_image.hpp"
#include "elf/elf_read.h"
#include "probe/loader_check.h"
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

namespace {
long read_string(void* ctx, unsigned long long off, void* buf, unsigned long n) {
  auto* s = static_cast<const std::string*>(ctx);
  if (off >= s->size()) return 0;
  n = static_cast<unsigned long>(std::min<unsigned long long>(n, s->size() - off));
  std::memcpy(buf, s->data() + off, n);
  return static_cast<long>(n);
}
}  // namespace

TEST_CASE("The one ELF reader: whole headers of either class, strings that end before their limit", "[elf]") {
  auto bytes = proof_bytes("proof_dynamic");
  edh_elf e;
  REQUIRE(edh_elf_header(&e, read_string, &bytes) == 1);
  CHECK(e.is64 == 1);
  CHECK(e.phsize == sizeof(Elf64_Phdr));
  CHECK(e.phentsize == e.phsize);
  // A 64-bit header cut anywhere is no header (a 32-bit one's size is not enough).
  for (size_t n : {0, 4, 16, 52, 63}) {
    std::string cut = bytes.substr(0, n);
    CHECK(edh_elf_header(&e, read_string, &cut) == 0);
  }
  std::string other_order = bytes;
  other_order[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2MSB : ELFDATA2LSB;
  CHECK(edh_elf_header(&e, read_string, &other_order) == 0);
  // The same header as a 32-bit one: widened from its own layout.
  std::string small(sizeof(Elf32_Ehdr), '\0');
  Elf32_Ehdr h32{};
  std::memcpy(h32.e_ident, bytes.data(), EI_NIDENT);
  h32.e_ident[EI_CLASS] = ELFCLASS32;
  h32.e_machine = EM_386;
  h32.e_phoff = 52;
  h32.e_phnum = 3;
  h32.e_phentsize = sizeof(Elf32_Phdr);
  std::memcpy(small.data(), &h32, sizeof h32);
  REQUIRE(edh_elf_header(&e, read_string, &small) == 1);
  CHECK(e.is64 == 0);
  CHECK(e.machine == EM_386);
  CHECK(e.phoff == 52);
  CHECK(e.phnum == 3);
  edh_elf_phdr p;
  CHECK(edh_elf_program_header(&e, 0, &p) == 0);  // past the end of the bytes

  // The section headers are the table's, not what follows it (here bytes that could be one more).
  std::string padded = bytes + std::string(sizeof(Elf64_Shdr), '\0');
  REQUIRE(edh_elf_header(&e, read_string, &padded) == 1);
  REQUIRE(e.shnum > 0);
  edh_elf_shdr sh;
  CHECK(edh_elf_section_header(&e, e.shnum - 1, &sh) == 1);
  CHECK(edh_elf_section_header(&e, e.shnum, &sh) == 0);

  std::string text = std::string("abc\0", 4) + std::string(300, 'x') + '\0' + "tail";
  REQUIRE(edh_elf_header(&e, read_string, &bytes) == 1);
  e.ctx = &text;
  char buf[8];
  CHECK(edh_elf_string(&e, 0, text.size(), buf, sizeof buf) == 3);
  CHECK(std::string(buf) == "abc");
  CHECK(edh_elf_string(&e, 0, 3, buf, sizeof buf) == -1);  // its NUL is the limit's byte
  CHECK(edh_elf_string(&e, 0, 4, buf, sizeof buf) == 3);
  // Longer than the buffer: its length, and as much as fits.
  CHECK(edh_elf_string(&e, 4, text.size(), buf, sizeof buf) == 300);
  CHECK(std::string(buf) == "xxxxxxx");
  CHECK(edh_elf_string(&e, 4, 4 + 300, buf, sizeof buf) == -1);
  // No NUL before the end of the bytes, or a start at or past the limit.
  CHECK(edh_elf_string(&e, 305, ~0ull, buf, sizeof buf) == -1);
  CHECK(edh_elf_string(&e, 10, 10, buf, sizeof buf) == -1);
  CHECK(edh_elf_string(&e, text.size() + 5, ~0ull, buf, sizeof buf) == -1);
}

TEST_CASE("Pre-flight and the exec hook read the same loader from a program", "[elf]") {
  for (const char* name : {"proof_dynamic", "proof_own_malloc"}) {
    auto bytes = proof_bytes(name);
    auto info = elf::parse(bytes);
    REQUIRE(info);
    char interp[256];
    CHECK(edh_exec_kind(read_string, &bytes, interp, sizeof interp) == EDH_DYNAMIC);
    CHECK(info->interp == interp);
  }
}
