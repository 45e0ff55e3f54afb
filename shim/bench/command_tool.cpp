#include "bench/command_tool.hpp"

#include <cstring>

#include "util/fs.hpp"

namespace bench {
namespace {

// A wrapper's words before the command: its short options that take a value (a separate word
// unless joined: -n 5, -n5), its long ones that do (--signal SIG; --signal=SIG is one word),
// and how many plain words come before the command (taskset's mask, timeout's duration).
struct Wrapper {
  const char* name;
  const char* short_values;
  std::vector<const char*> long_values;
  int leading_words;
  const char* opaque;  // options after which the command is a string of its own: not seen through
  const char* long_opaque;
};

const std::vector<Wrapper>& wrappers() {
  static const std::vector<Wrapper> table = {
      {"env", "uC", {"unset", "chdir"}, 0, "S", "split-string"},
      {"nice", "n", {"adjustment"}, 0, "", ""},
      {"ionice", "cnpPu", {"class", "classdata", "pid", "pgid", "uid"}, 0, "", ""},
      {"chrt", "TPD", {"sched-runtime", "sched-period", "sched-deadline"}, 1, "", ""},
      {"taskset", "", {}, 1, "", ""},
      {"numactl", "ipmNCw", {"interleave", "preferred", "membind", "cpunodebind", "physcpubind", "weighted-interleave"}, 0, "", ""},
      {"stdbuf", "ioe", {"input", "output", "error"}, 0, "", ""},
      {"time", "of", {"output", "format"}, 0, "", ""},
      {"timeout", "sk", {"signal", "kill-after"}, 1, "", ""},
      {"setsid", "", {}, 0, "", ""},
      {"nohup", "", {}, 0, "", ""},
      {"flock", "wE", {"timeout", "conflict-exit-code"}, 1, "c", "command"},
  };
  return table;
}

const Wrapper* wrapper_named(const std::string& word) {
  std::string name = util::basename(word);
  for (const auto& w : wrappers())
    if (name == w.name) return &w;
  return nullptr;
}

bool takes_long_value(const Wrapper& w, const std::string& name) {
  for (const char* v : w.long_values)
    if (name == v) return true;
  return false;
}

}  // namespace

std::size_t tool_index(const std::vector<std::string>& command) {
  std::size_t i = 0;
  while (i < command.size()) {
    const Wrapper* w = wrapper_named(command[i]);
    if (!w) return i;
    std::size_t at = i;
    int leading = w->leading_words;
    bool options = true;
    for (++i; i < command.size(); ++i) {
      const std::string& a = command[i];
      if (options && a == "--") {
        options = false;
        continue;
      }
      if (options && a.size() > 2 && a.compare(0, 2, "--") == 0) {
        std::string name = a.substr(2, a.find('=') - 2);
        if (name == w->long_opaque) return at;
        if (a.find('=') == std::string::npos && takes_long_value(*w, name)) ++i;
        continue;
      }
      if (options && a.size() > 1 && a[0] == '-') {
        // nice -10; then each letter of -abc, the last of which may take the next word.
        if (a.find_first_not_of("0123456789", 1) == std::string::npos) continue;
        for (std::size_t c = 1; c < a.size(); ++c) {
          if (std::strchr(w->opaque, a[c])) return at;
          if (std::strchr(w->short_values, a[c])) {
            if (c + 1 == a.size()) ++i;  // the value is the next word
            break;                       // else it is the rest of this one
          }
        }
        continue;
      }
      if (std::string(w->name) == "env" && a.find('=') != std::string::npos) continue;  // NAME=VALUE
      if (leading > 0) {
        --leading;
        continue;
      }
      break;  // the command this wrapper runs
    }
  }
  return i;
}

std::string tool_name(const std::vector<std::string>& command) {
  if (command.empty()) return "";
  std::size_t i = tool_index(command);
  return util::basename(command[i < command.size() ? i : 0]);
}

std::vector<std::string> from_tool(const std::vector<std::string>& command) {
  std::size_t i = tool_index(command);
  if (i >= command.size()) return command;
  return {command.begin() + long(i), command.end()};
}

}  // namespace bench
