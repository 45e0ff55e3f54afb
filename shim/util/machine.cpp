#include "util/machine.hpp"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>

#include "util/fact_cache.hpp"
#include "util/fs.hpp"

namespace util {
namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::optional<std::string> cpu_model_of_cpuinfo(std::string_view text) {
  for (std::string_view key : {"model name", "Processor", "cpu model", "uarch", "cpu"}) {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      size_t colon = line.find(':');
      if (colon == std::string_view::npos || trim(line.substr(0, colon)) != key) continue;
      std::string value = trim(line.substr(colon + 1));
      if (!value.empty()) return value;
    }
  }
  return std::nullopt;
}

Machine current_machine(FactCache* cache) {
  Machine m;
  struct utsname u;
  if (::uname(&u) == 0) m.kernel = u.release;
  m.cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  struct stat st;
  const char* file = "/proc/cpuinfo";
  bool stamped = cache && ::stat(file, &st) == 0;
  if (stamped) {
    if (auto facts = cache->get(FileStamp::of(st))) {
      if (auto it = facts->find("cpu_model"); it != facts->end()) {
        if (!it->second.empty()) m.cpu = it->second;
        return m;
      }
    }
  }
  auto text = read_file(file, 1 << 20);
  if (text) m.cpu = cpu_model_of_cpuinfo(*text);
  if (stamped) {
    cache->put(FileStamp::of(st), {{"cpu_model", m.cpu.value_or("")}});
    cache->save();
  }
  return m;
}

}  // namespace util
