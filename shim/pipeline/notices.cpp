#include "pipeline/notices.hpp"

#include <unistd.h>

#include <cstdlib>
#include <map>

#include "paths/files.hpp"
#include "pipeline/warn_once.hpp"
#include "run/flow_id.hpp"
#include "run/scratch.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/voice.hpp"

namespace pipeline {
namespace {

struct RunNotices {
  std::vector<std::string> texts;
  std::map<std::string, bool> said;  // key -> said on stderr in this run
  std::optional<NoticeRoute> route;
};

RunNotices& state() {
  static RunNotices n;
  return n;
}

NoticeRoute route() {
  auto& n = state();
  if (n.route) return *n.route;
  const char* v = std::getenv(kNoticesVar);
  auto parsed = parse_notice_route(v ? v : "");
  n.route = parsed.value_or(NoticeRoute::terminal);
  if (!parsed)
    notice(std::string(kNoticesVar) + "=" + util::shell_quote(v) +
           " is not one of terminal, stderr, log; taken as terminal (said on stderr only when it is a terminal)");
  return *n.route;
}

// Whether this session has not heard `key` yet. The markers go in the user's state directory or,
// where that cannot be written (a read-only HOME, as on farm nodes), in the user's own base in
// XDG_RUNTIME_DIR or /tmp: a notice there is still said once, not on every run.
bool first_in_this_session(const std::string& key) {
  const char* f = std::getenv(run::kFlowVar);  // a flow's nested runs: where no session can be named
  std::string flow = f ? f : "";
  std::string state_dir = util::dirname(paths::Files::discover().trust_file) + "/warned";
  if (auto first = first_in_session_at(state_dir, key, "notice", flow)) return *first;
  const char* r = std::getenv("XDG_RUNTIME_DIR");
  std::string own = run::own_base(r && *r == '/' && util::is_directory(r) ? r : "/tmp", ::getuid());
  if (!run::make_own_base(own).ok()) return true;
  return first_in_session_at(own + "/warned", key, "notice", flow).value_or(true);
}

}  // namespace

std::optional<NoticeRoute> parse_notice_route(std::string_view value) {
  if (value.empty() || value == "terminal") return NoticeRoute::terminal;
  if (value == "stderr") return NoticeRoute::stderr_always;
  if (value == "log") return NoticeRoute::log_only;
  return std::nullopt;
}

bool says_on_stderr(NoticeRoute route, bool stderr_is_terminal) {
  switch (route) {
    case NoticeRoute::terminal: return stderr_is_terminal;
    case NoticeRoute::stderr_always: return true;
    case NoticeRoute::log_only: return false;
  }
  return false;
}

void notice(const std::string& text, const std::string& key) {
  auto& n = state();
  n.texts.push_back(text);
  if (!says_on_stderr(route(), ::isatty(STDERR_FILENO) == 1)) return;
  const std::string& k = key.empty() ? text : key;
  auto it = n.said.find(k);
  if (it == n.said.end()) it = n.said.emplace(k, first_in_this_session(k)).first;
  if (it->second) util::Voice("edashim").say(text);
}

const std::vector<std::string>& run_notices() { return state().texts; }

}  // namespace pipeline
