#include "farm/scheduler.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "util/strings.hpp"

namespace farm {
namespace {

std::optional<int> number(const std::string& s) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::atoi(s.c_str());
}

// Key=Value of one `scontrol -o` line (values never hold the spaces of these keys).
std::map<std::string, std::string> fields(const std::string& line) {
  std::map<std::string, std::string> out;
  for (const auto& word : util::split(line, ' ')) {
    auto eq = word.find('=');
    if (eq != std::string::npos) out.emplace(word.substr(0, eq), word.substr(eq + 1));
  }
  return out;
}

}  // namespace

bool TaskState::active() const {
  for (const char* s : {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING",
                        "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"})
    if (state == s) return true;
  return false;
}

std::string index_ranges(std::vector<int> rounds) {
  std::sort(rounds.begin(), rounds.end());
  rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
  std::string out;
  for (std::size_t i = 0; i < rounds.size();) {
    std::size_t j = i;
    while (j + 1 < rounds.size() && rounds[j + 1] == rounds[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(rounds[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(rounds[j]);
    }
    i = j + 1;
  }
  return out;
}

std::vector<int> parse_index_ranges(const std::string& text_in) {
  std::string text = text_in.substr(0, text_in.find('%'));  // "%2": the throttle, not an index
  std::vector<int> out;
  for (const auto& part : util::split(text, ',')) {
    auto dash = part.find('-');
    auto a = number(part.substr(0, dash));
    auto b = dash == std::string::npos ? a : number(part.substr(dash + 1));
    if (!a || !b || *b < *a || *b - *a > 1000000) return {};
    for (int i = *a; i <= *b; ++i) out.push_back(i);
  }
  return out;
}

std::optional<std::string> reserved_slurm_option(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    std::string name = a.substr(0, a.find('='));
    if (name == "--array" || name == "-a" || util::starts_with(a, "-a"))
      return a + ": edashim sets --array itself (one array task per round); leave it out";
    if (name == "--output" || name == "-o" || name == "--error" || name == "-e" || util::starts_with(a, "-o") ||
        util::starts_with(a, "-e"))
      return a + ": edashim keeps each task's output in DIR/slurm/ (where collect points to it); leave it out";
    if (name == "--wrap" || name == "--parsable")
      return a + ": edashim submits its own task script; leave it out";
  }
  return std::nullopt;
}

std::vector<std::string> sbatch_argv(const std::string& dir, const std::vector<int>& rounds,
                                     const std::vector<std::string>& user_args) {
  std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=edashim-bench", "--output=" + dir + "/slurm/%A_%a.out"};
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  argv.push_back("--array=" + index_ranges(rounds));
  argv.push_back(dir + "/task.sh");
  return argv;
}

std::string slurm_task_script(const std::string& dir, const std::string& edashim, const std::string& fingerprint) {
  return "#!/bin/sh\n"
         "# One round of the edashim experiment in this directory; Slurm runs it as array task N = the round.\n"
         "exec " + util::shell_quote(edashim) + " bench round --fingerprint " + util::shell_quote(fingerprint) + " " +
         util::shell_quote(dir) + " \"$SLURM_ARRAY_TASK_ID\"\n";
}

std::vector<std::string> parallel_argv(const std::string& dir, const std::string& edashim, const std::string& fingerprint,
                                       const std::vector<int>& rounds, const std::vector<std::string>& user_args,
                                       const std::string& joblog) {
  // -q: parallel hands the command to a shell, and quotes its words only when told to (a
  // directory named "a;b" would otherwise be two commands).
  std::vector<std::string> argv{"parallel", "--will-cite", "-q", "--jobs", "1", "--joblog", joblog};
  bool hosts = false;
  for (const auto& a : user_args) hosts |= a == "--sshlogin" || a == "-S" || util::starts_with(a, "--sshlogin=") ||
                                           a == "--sshloginfile" || a == "--slf";
  if (!hosts) argv.insert(argv.end(), {"--sshlogin", ":"});  // this machine only
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  argv.insert(argv.end(), {edashim, "bench", "round", "--fingerprint", fingerprint, dir, "{}", ":::"});
  for (int r : rounds) argv.push_back(std::to_string(r));
  return argv;
}

std::map<int, TaskState> parse_scontrol(const std::string& text, const std::string& job) {
  std::map<int, TaskState> out;
  for (const auto& line : util::split(text, '\n')) {
    auto f = fields(line);
    if (f["ArrayJobId"] != job) continue;
    TaskState t{f["JobState"], f["Reason"] == "None" ? "" : f["Reason"], f["NodeList"] == "(null)" ? "" : f["NodeList"]};
    for (int r : parse_index_ranges(f["ArrayTaskId"])) out[r] = t;
  }
  return out;
}

std::map<int, TaskState> parse_sacct(const std::string& text, const std::string& job) {
  std::map<int, TaskState> out;
  for (const auto& line : util::split(text, '\n')) {
    auto cols = util::split(line, '|');
    if (cols.size() < 2 || !util::starts_with(cols[0], job + "_")) continue;
    std::string ids = cols[0].substr(job.size() + 1);
    if (!ids.empty() && ids.front() == '[') ids = ids.substr(1, ids.find(']') - 1);  // "12_[3-5]": still pending
    std::string state = cols[1].substr(0, cols[1].find(' '));  // "CANCELLED by 0"
    for (int r : parse_index_ranges(ids)) out[r] = {state, "", cols.size() > 2 ? cols[2] : ""};
  }
  return out;
}

std::map<int, TaskState> parse_joblog(const std::string& text) {
  std::map<int, TaskState> out;
  for (const auto& line : util::split(text, '\n')) {
    auto cols = util::split(line, '\t');
    if (cols.size() < 9 || cols[0] == "Seq") continue;
    auto words = util::split(cols[8], ' ');
    auto round = words.empty() ? std::nullopt : number(words.back());
    if (!round) continue;
    std::string state = cols[7] != "0" ? "SIGNAL " + cols[7] : cols[6] != "0" ? "EXITED " + cols[6] : "COMPLETED";
    out[*round] = {state, "", cols[1] == ":" ? "" : cols[1]};
  }
  return out;
}

bool valid_job_id(const std::string& executor, const std::string& job) {
  if (job.empty() || job.size() > 64) return false;
  if (executor == "parallel") {
    auto n = number(job);
    return n && *n > 0;
  }
  if (executor != "slurm") return false;
  static const std::regex slurm_id("[0-9]{1,18}(_([0-9]{1,9}|\\[[0-9]{1,9}(-[0-9]{1,9})?(,[0-9]{1,9}(-[0-9]{1,9})?)*(%[0-9]{1,9})?\\]))?");
  return std::regex_match(job, slurm_id);
}

std::string executor_args_problem(const std::string& executor, const std::vector<std::string>& args) {
  if (executor != "slurm" && executor != "parallel") return "executor '" + printable(executor) + "' is neither slurm nor parallel";
  for (const auto& a : args)
    if (a.find('\0') != std::string::npos || printable(a) != a)
      return (executor == "slurm" ? "--slurm-args " : "--parallel-args ") + printable(a) + ": control characters in an argument";
  if (executor == "slurm")
    if (auto bad = reserved_slurm_option(args)) return "--slurm-args " + printable(*bad);
  return "";
}

util::Result<std::string> task_edashim(const std::string& recorded, const std::optional<util::FileId>& recorded_id,
                                       const std::optional<util::FileId>& self_id, const std::string& self_path,
                                       const std::vector<std::string>& allowed) {
  if (!recorded.empty() && recorded[0] == '/') {
    if (recorded_id && self_id && *recorded_id == *self_id) return recorded;
    if (std::find(allowed.begin(), allowed.end(), recorded) != allowed.end()) return recorded;
  }
  return util::fail("the experiment names \"" + printable(recorded) + "\" as the edashim its tasks run, which is not this edashim (" +
                    printable(self_path) + "): refusing to run it; collect with the edashim that made the experiment, list it in "
                    "farm_edashim in your own config.toml, or start a new experiment with this one");
}

bool nesting_exceeds(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out;
}

util::Result<std::vector<std::string>> shell_words(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
      else word += c;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '\\' && i + 1 < text.size() && std::string("\"\\$`").find(text[i + 1]) != std::string::npos) word += text[++i];
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) return util::fail(std::string("unclosed ") + (quote == '"' ? "double" : "single") + " quote in '" + text + "'");
  if (in_word) out.push_back(word);
  return out;
}

}  // namespace farm
