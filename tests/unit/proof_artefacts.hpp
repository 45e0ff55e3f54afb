#pragma once
// Paths of the real artefacts tests/CMakeLists.txt builds for the proof tests, and their bytes.
#include <string>

#include "util/fs.hpp"

inline std::string proof_artefact(const std::string& name) { return std::string(EDASHIM_PROOF_DIR) + "/" + name; }

inline std::string proof_bytes(const std::string& name) {
  auto bytes = util::read_file(proof_artefact(name), 64 << 20);
  return bytes.value_or("");
}

inline const char* kLibDir = "/usr/lib/x86_64-linux-gnu";
