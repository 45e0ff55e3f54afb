#pragma once
// A whole file mapped read-only: parsers get a string_view and the kernel reads only the pages
// they touch (an executable's headers, not its 100 MB of code).
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace util {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;

  // Maps `path`; the reason when it cannot be opened or mapped.
  Status open(const std::string& path);
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace util
