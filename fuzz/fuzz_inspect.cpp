// Fuzzes the pre-flight inspector (tool/inspect): what an executable's bytes say (ELF kind,
// interpreter, malloc defined, allocator linked) and the #! line, both pure functions of bytes.
#include <cstdint>
#include <string_view>

#include "tool/inspect.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view image(reinterpret_cast<const char*>(data), size);
  auto facts = tool::facts_from_image(image);
  auto back = tool::from_cache(tool::to_cache(facts));
  if (back.kind != facts.kind || back.interpreter != facts.interpreter) __builtin_trap();
  (void)tool::parse_shebang(image.substr(0, 256));
  return 0;
}
