// Fuzzes the allocator-version reader (alloc::version_from_image), which reads any library a
// profile names: mi_version's machine code found through the dynamic symbols and the PT_LOAD
// segments, and the version strings of jemalloc, gperftools and TBB. The first byte picks the
// family. Must never read outside the bytes (a wrapped segment offset did: issue 12 item 7).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/registry.hpp"
#include "alloc/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The families with a version to read, in the registry's order (the seed corpus was made
  // with mimalloc, jemalloc, tcmalloc, tbbmalloc as 0 to 3).
  static const std::vector<std::string> families = [] {
    std::vector<std::string> out;
    for (const auto& f : alloc::families())
      if (f.probe != alloc::VersionProbe::kNone) out.emplace_back(f.name);
    return out;
  }();
  // A copy of exactly the bytes, so that ASan sees any read past them.
  std::string image(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string v = alloc::version_from_image(families[data[0] % families.size()], image);
  if (v.size() > 32) __builtin_trap();  // a version is a few digits and dots
  return 0;
}
