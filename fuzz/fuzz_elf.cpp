// Fuzzes the ELF build-id reader (elf::build_id), which reads any same-size file found on PATH.
#include <cstdint>
#include <string_view>

#include "elf/elf_image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto id = elf::build_id(std::string_view(reinterpret_cast<const char*>(data), size));
  if (id && id->size() % 2 != 0) __builtin_trap();
  return 0;
}
