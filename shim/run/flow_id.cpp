#include "run/flow_id.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <cstdint>
#include <ctime>

#include "run/environment.hpp"
#include "util/strings.hpp"

namespace run {

bool valid_flow_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == ':' || c == '+' || c == '@';
    if (!ok) return false;
  }
  return true;
}

FlowIdentity flow_identity(const std::vector<std::string>& env, std::string run_id) {
  FlowIdentity f;
  f.run_id = std::move(run_id);
  auto flow = lookup(env, kFlowVar);
  if (flow && valid_flow_id(*flow)) {
    f.flow = *flow;
    auto parent = lookup(env, kParentRunVar);
    if (parent && valid_flow_id(*parent)) f.parent_run = *parent;
    return f;
  }
  f.flow = f.run_id;
  if (flow && !flow->empty())
    f.note = std::string(kFlowVar) + "=" + util::printable(util::shell_quote(flow->substr(0, 200))) +
             (flow->size() > 200 ? "..." : "") +
             " is not a flow id (1 to 128 of A-Z a-z 0-9 . _ - : + @); ignored: this run starts the flow " + f.flow;
  return f;
}

namespace {
std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

std::string new_run_id() {
  std::uint64_t v = 0;
  if (::getrandom(&v, sizeof v, GRND_NONBLOCK) != ssize_t(sizeof v)) {
    static std::uint64_t counter = 0;
    struct timespec ts;
    ::clock_gettime(CLOCK_REALTIME, &ts);
    v = mix(std::uint64_t(ts.tv_sec) * 1000000000ULL + std::uint64_t(ts.tv_nsec)) ^ mix(std::uint64_t(::getpid()) << 20 | ++counter);
  }
  static const char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[std::size_t(i)] = digits[v & 15];
  return out;
}

}  // namespace run
