#include "util/machine.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
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

namespace {

// The first 4 KiB of /proc/cpuinfo: the kernel formats only the first CPU's entry for it, and
// the model name is in that entry.
std::optional<std::string> read_cpu_model() {
  Fd fd(::open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buf[4096];
  ssize_t n;
  do n = ::read(fd.get(), buf, sizeof buf);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  return cpu_model_of_cpuinfo(std::string_view(buf, size_t(n)));
}

}  // namespace

std::optional<std::string> cpu_model(FactCache* cache) {
  struct stat st;
  bool stamped = cache && ::stat("/proc/cpuinfo", &st) == 0;
  if (stamped) {
    if (auto facts = cache->get(FileStamp::of(st))) {
      if (auto it = facts->find("cpu_model"); it != facts->end())
        return it->second.empty() ? std::nullopt : std::optional<std::string>(it->second);
    }
  }
  auto model = read_cpu_model();
  if (stamped) {
    cache->put(FileStamp::of(st), {{"cpu_model", model.value_or("")}});
    cache->save();
  }
  return model;
}

Machine current_machine(FactCache* cache) {
  Machine m;
  struct utsname u;
  if (::uname(&u) == 0) m.kernel = u.release;
  m.cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  m.cpu = cpu_model(cache);
  return m;
}

std::string host_name() {
  char host[256] = "";
  if (::gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

}  // namespace util
