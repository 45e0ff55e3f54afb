// Fuzzes the allocator-version reader (alloc::version_from_image), which reads any library a
// profile names: mi_version's machine code found through the dynamic symbols and the PT_LOAD
// segments, and the version strings of jemalloc, gperftools and TBB. The first byte picks the
// family. Must never read outside the bytes (a wrapped segment offset did: issue 12 item 7).
#include <cstdint>
#include <string>
#include <string_view>

#include "alloc/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const families[] = {"mimalloc", "jemalloc", "tcmalloc", "tbbmalloc"};
  // A copy of exactly the bytes, so that ASan sees any read past them.
  std::string image(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string v = alloc::version_from_image(families[data[0] % 4], image);
  if (v.size() > 32) __builtin_trap();  // a version is a few digits and dots
  return 0;
}
