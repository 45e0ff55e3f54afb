// Fuzzes the trust store's format (config::TrustStore::parse/render): any text either parses
// exactly or is refused, and what parses renders back to the same bytes (one spelling per
// entry: no second reading of a line). Then the other way: any bytes as a path round-trip
// through render and parse as one entry (no directory name can forge a line: issue 12 item 2).
#include <cstdint>
#include <string>
#include <string_view>

#include "config/trust.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto entries = config::TrustStore::parse(text)) {
    if (config::TrustStore::render(*entries) != text) __builtin_trap();
  } else if (entries.error().empty()) {
    __builtin_trap();
  }
  std::string path = "/" + std::string(text);
  std::vector<config::TrustStore::Entry> one = {{std::string(64, 'a'), path}};
  auto back = config::TrustStore::parse(config::TrustStore::render(one));
  if (!back || back->size() != 1 || (*back)[0].file != path) __builtin_trap();
  // The store of ignored files (trust --ignore) shares the format under its own first line, and
  // neither store's text passes for the other's.
  auto ignored = config::TrustStore::render(one, config::Decision::ignored);
  auto ignored_back = config::TrustStore::parse(ignored, config::Decision::ignored);
  if (!ignored_back || ignored_back->size() != 1 || (*ignored_back)[0].file != path) __builtin_trap();
  if (config::TrustStore::parse(ignored, config::Decision::trusted)) __builtin_trap();
  return 0;
}
