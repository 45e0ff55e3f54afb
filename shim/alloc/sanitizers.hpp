#pragma once
// Sanitizer runtimes (ASan, TSan, MSan, LSan, HWASan, UBSan), by file name: a tool linked with
// one, or a user's LD_PRELOAD holding one, must get no allocator from edashim. The runtime must
// come first among the loaded objects ("ASan runtime does not come first in initial library
// list") and all of them but UBSan serve malloc themselves.
#include <string_view>

namespace alloc {

// The sanitizer a library belongs to ("asan", ..., "ubsan"), or "" for any other library:
// GCC's libasan.so.8 and clang's libclang_rt.asan-x86_64.so alike.
inline std::string_view sanitizer_of_library(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.substr(0, 12) == "libclang_rt.") name.remove_prefix(12);
  else if (name.substr(0, 3) == "lib") name.remove_prefix(3);
  else return "";
  for (std::string_view s : {"asan", "tsan", "msan", "lsan", "hwasan", "ubsan"})
    if (name.substr(0, s.size()) == s && name.size() > s.size() && (name[s.size()] == '.' || name[s.size()] == '-' || name[s.size()] == '_'))
      return s;
  return "";
}

inline bool is_sanitizer_runtime(std::string_view path) { return !sanitizer_of_library(path).empty(); }

}  // namespace alloc
