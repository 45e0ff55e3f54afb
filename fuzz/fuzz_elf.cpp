// Fuzzes the ELF build-id reader (tool::build_id), which reads any file found on PATH.
#include <cstdint>

#include "fuzz_common.hpp"
#include "tool/elf_note.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string file = fuzz_dir() + "/elf";
  write_whole(file, data, size);
  auto id = tool::build_id(file);
  if (id && id->size() % 2 != 0) __builtin_trap();
  return 0;
}
