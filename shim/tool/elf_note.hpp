#pragma once
// The GNU build-id of an ELF file: what tells a copy of edashim from another program.
#include <optional>
#include <string>

namespace tool {
std::optional<std::string> build_id(const std::string& path);
}
