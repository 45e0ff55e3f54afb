#include "run/exit_notice.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <vector>

namespace run {
namespace {
long long usec(const struct timeval& tv) { return (long long)tv.tv_sec * 1000000LL + tv.tv_usec; }
}  // namespace

std::string exit_var_value(pid_t pid, int lock_fd, unsigned long long lock_dev, unsigned long long lock_ino,
                           const std::string& dir, const std::string& exe) {
  return std::to_string(pid) + ":" + (lock_fd >= 0 ? std::to_string(lock_fd) : std::string("-")) + ":" +
         std::to_string(lock_dev) + ":" + std::to_string(lock_ino) + ":" + std::to_string(dir.size()) + ":" + dir +
         ":" + exe;
}

std::optional<ExitNotice> parse_exit_notice(std::string_view text) {
  if (text.empty() || text.back() != '\n') return std::nullopt;
  std::vector<long long> v;
  size_t at = 0;
  while (at < text.size() - 1) {
    size_t end = text.find_first_of(" \t\n", at);
    std::string word(text.substr(at, end - at));
    char* stop = nullptr;
    errno = 0;
    long long x = std::strtoll(word.c_str(), &stop, 10);
    if (word.empty() || *stop || errno) return std::nullopt;
    v.push_back(x);
    at = end + 1;
  }
  if (v.size() != 9) return std::nullopt;
  for (size_t i = 1; i < 9; ++i)
    if (i != 7 && v[i] < 0) return std::nullopt;  // VmHWM is -1 when /proc could not say
  ExitNotice n;
  n.wait_status = int(v[0]);
  n.utime_us = v[1];
  n.stime_us = v[2];
  n.cutime_us = v[3];
  n.cstime_us = v[4];
  n.maxrss_kb = long(v[5]);
  n.cmaxrss_kb = long(v[6]);
  n.hwm_kb = long(v[7]);
  n.end_ns = v[8];
  return n;
}

OwnUsage own_usage_now() {
  struct rusage self {}, children {};
  ::getrusage(RUSAGE_SELF, &self);
  ::getrusage(RUSAGE_CHILDREN, &children);
  return {usec(self.ru_utime), usec(self.ru_stime), usec(children.ru_utime), usec(children.ru_stime), self.ru_maxrss};
}

Ending ending_from_notice(const ExitNotice& n, const OwnUsage& own, long long start_ns) {
  Ending e;
  e.wait_status = n.wait_status;
  if (n.end_ns > start_ns) e.wall_s = double(n.end_ns - start_ns) / 1e9;
  long long user = (n.utime_us - own.utime_us) + (n.cutime_us - own.cutime_us);
  long long sys = (n.stime_us - own.stime_us) + (n.cstime_us - own.cstime_us);
  e.user_s = double(std::max(0LL, user)) / 1e6;
  e.sys_s = double(std::max(0LL, sys)) / 1e6;
  long peak = std::max(n.hwm_kb, n.cmaxrss_kb);
  if (n.maxrss_kb > own.maxrss_kb) peak = std::max(peak, n.maxrss_kb);
  if (peak > 0) e.max_rss_kb = peak;
  return e;
}

}  // namespace run
