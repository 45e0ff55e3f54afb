#pragma once
// Reading what ld.so would read from an ELF file held in memory: pure functions over bytes,
// through the one ELF reader (elf_read.h), bounds-checked everywhere (a truncated or hostile
// file gives nullopt, never a crash).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace elf {

struct Info {
  bool is64 = true;
  uint16_t type = 0;          // ET_EXEC, ET_DYN, ...
  uint16_t machine = 0;       // EM_X86_64, EM_AARCH64, ...
  std::string interp;         // PT_INTERP: the dynamic loader; empty when there is none
  bool has_interp = false;
  bool has_dynamic = false;   // PT_DYNAMIC (static-pie executables have one but no PT_INTERP)
  std::vector<std::string> needed;  // DT_NEEDED, in order
  std::string soname;         // DT_SONAME
};

// The headers ld.so looks at; nullopt when `image` is not a well-formed ELF file of this host's
// byte order.
std::optional<Info> parse(std::string_view image);

struct Symbol {
  uint64_t value = 0;
  uint64_t size = 0;
  bool defined = false;  // st_shndx != SHN_UNDEF
  unsigned char type = 0, bind = 0;
};

// A symbol of the dynamic symbol table (the one ld.so binds against), by name.
std::optional<Symbol> find_dynamic_symbol(std::string_view image, std::string_view name);

// True when the dynamic symbol table defines `name` as a function other objects bind to
// (global or weak; FUNC or IFUNC): for `malloc`, the executable's own allocator wins.
bool defines_function(std::string_view image, std::string_view name);

// The GNU build-id (NT_GNU_BUILD_ID note) as lowercase hex: what tells a copy of edashim from
// another program of the same size.
std::optional<std::string> build_id(std::string_view image);

// File offset of a virtual address, through the PT_LOAD segments.
std::optional<uint64_t> file_offset(std::string_view image, uint64_t vaddr);

}  // namespace elf
