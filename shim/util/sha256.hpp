#pragma once
// SHA-256 of a byte string, as lowercase hex. Used to pin trust to a config file's content.
#include <string>
#include <string_view>

namespace util {
std::string sha256_hex(std::string_view data);
}
