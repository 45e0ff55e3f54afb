#include "learn/learned.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "alloc/allocators.hpp"
#include "alloc/option_value.hpp"
#include "alloc/options.hpp"
#include "util/fs.hpp"
#include "util/machine.hpp"
#include "util/owned_file.hpp"
#include "util/strings.hpp"
#include "util/toml_parse.hpp"

namespace learn {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  std::string s = buf;
  // TOML floats need a '.' or an exponent.
  if (s.find_first_of(".einf") == std::string::npos) s += ".0";
  return s;
}

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\', q += c;
    else if (c == '\n') q += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
      q += buf;
    } else q += c;
  }
  return q + "\"";
}

std::string two(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::optional<Identity> identity_of(const std::string& path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  Identity id;
  id.path = util::real_path(path).value_or(path);
  id.size = int64_t(st.st_size);
  id.mtime_s = int64_t(st.st_mtim.tv_sec);
  id.mtime_ns = int64_t(st.st_mtim.tv_nsec);
  return id;
}

std::optional<ArmParts> parse_arm(const std::string& arm) {
  ArmParts parts;
  auto open = arm.find('[');
  parts.allocator = arm.substr(0, open);
  if (parts.allocator.empty()) return std::nullopt;
  if (open == std::string::npos) return parts;
  if (arm.back() != ']') return std::nullopt;
  std::string body = arm.substr(open + 1, arm.size() - open - 2);
  std::size_t pos = 0;
  while (pos <= body.size() && !body.empty()) {
    auto comma = body.find(',', pos);
    std::string item = body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    parts.options.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return parts;
}

namespace {

bool all_of_chars(std::string_view text, std::string_view extra) {
  return std::all_of(text.begin(), text.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || extra.find(c) != extra.npos;
  });
}

}  // namespace

std::string arm_problem(const std::string& arm) {
  if (arm.size() > 256) return "is longer than any arm edashim writes";
  auto parts = parse_arm(arm);
  auto names = alloc::known_names();
  if (!parts || std::find(names.begin(), names.end(), parts->allocator) == names.end())
    return "is not a known allocator (known: " + util::join(names, ", ") + ")";
  std::string family = parts->allocator == "system" ? "glibc" : parts->allocator;
  std::vector<std::string> seen;
  for (const auto& [name, value] : parts->options) {
    // As config/load.cpp takes an option name: anything else would be pasted into MALLOC_CONF
    // or a variable's name.
    if (name.empty() || name.size() >= 64 || !all_of_chars(name, "_")) return "has an option name that is not one";
    if (std::find(seen.begin(), seen.end(), util::to_lower(name)) != seen.end()) return "sets " + name + " twice";
    seen.push_back(util::to_lower(name));
    if (auto why = alloc::restricted_option(family, name))
      return "sets " + name + ", which " + *why + ": only your own config file can set it";
    if (value.empty() || value.size() >= 64 || !all_of_chars(value, "._+-"))
      return "has a value for " + name + " that no option takes";
    if (auto bad = alloc::check_value(family, name, alloc::option_from_text(value))) return "has " + *bad;
  }
  return "";
}

bool is_tool_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || name == "." || name == ".." || util::printable(name) != name) return false;
  return name.find_first_of("/\"'\\`") == std::string_view::npos;
}


util::Result<std::vector<Learned>> parse_learned(const std::string& text, const std::string& name) {
  std::vector<Learned> out;
  // edashim writes no key of more than one part and no nesting: 16 is far from both.
  auto root = util::parse_toml(text, name, 16);
  if (!root) {
    const auto& p = root.failure();
    switch (p.kind) {
      case util::TomlProblem::Kind::too_deep:
        return util::fail(name + ":" + std::to_string(p.line) + ": " + p.what + " (edashim never writes one)");
      case util::TomlProblem::Kind::syntax: return util::fail(name + ":" + std::to_string(p.line) + ": " + p.what);
      case util::TomlProblem::Kind::other: break;
    }
    return util::fail(name + ": cannot be read as TOML (" + p.what + ")");
  }
  auto* choices = root->get("choice");
  if (!choices) return out;
  auto* arr = choices->as_array();
  if (!arr) return util::fail(name + ": 'choice' must be an array of tables ([[choice]])");
  std::string error;  // the first field found missing or of the wrong type
  for (auto& node : *arr) {
    auto* t = node.as_table();
    int line = int(node.source().begin.line);
    auto where = name + ":" + std::to_string(line) + ": ";
    if (!t) return util::fail(where + "each choice must be a table");
    Learned l;
    l.line = line;
    auto str = [&](const char* key, std::string& v, bool required) {
      if (auto s = (*t)[key].value_exact<std::string>()) return v = *s, true;
      if (required) error = where + "'" + key + "' must be a string";
      return !required;
    };
    auto integer = [&](const char* key, int64_t& v) {
      if (auto i = (*t)[key].value_exact<int64_t>()) return v = *i, true;
      error = where + "'" + key + "' must be an integer";
      return false;
    };
    auto real = [&](const char* key, double& v) {
      if (auto d = (*t)[key].value<double>()) return v = *d, true;
      error = where + "'" + key + "' must be a number";
      return false;
    };
    bool ok = str("tool", l.tool, true) && str("cpu", l.cpu, true) && str("arm", l.arm, true) &&
              str("replaces", l.replaces, false) && str("tool_path", l.binary.path, true) &&
              integer("tool_size", l.binary.size) && integer("tool_mtime", l.binary.mtime_s) &&
              integer("tool_mtime_ns", l.binary.mtime_ns) && integer("runs", l.runs) &&
              integer("signatures", l.signatures) && real("ratio", l.ratio) && real("ci_lo", l.ci_lo) &&
              real("ci_hi", l.ci_hi) && real("rss_ratio", l.rss_ratio) && real("p", l.p) && str("date", l.date, false);
    if (!ok) return util::fail(error);
    out.push_back(std::move(l));
  }
  return out;
}

std::string render_learned(const std::vector<Learned>& entries) {
  std::string out =
      "# edashim's learned choices: written by `edashim report --recommend` when adopt = true, one per tool\n"
      "# and CPU model, with the evidence; `edashim forget [TOOL]` drops them. Edits are kept until the next\n"
      "# recommend or forget rewrites the file.\n";
  for (const auto& l : entries) {
    out += "\n[[choice]]\n";
    out += "tool = " + quoted(l.tool) + "\n";
    out += "cpu = " + quoted(l.cpu) + "\n";
    out += "arm = " + quoted(l.arm) + "\n";
    out += "replaces = " + quoted(l.replaces) + "\n";
    out += "tool_path = " + quoted(l.binary.path) + "\n";
    out += "tool_size = " + std::to_string(l.binary.size) + "\n";
    out += "tool_mtime = " + std::to_string(l.binary.mtime_s) + "\n";
    out += "tool_mtime_ns = " + std::to_string(l.binary.mtime_ns) + "\n";
    out += "runs = " + std::to_string(l.runs) + "\n";
    out += "signatures = " + std::to_string(l.signatures) + "\n";
    out += "ratio = " + number(l.ratio) + "\n";
    out += "ci_lo = " + number(l.ci_lo) + "\n";
    out += "ci_hi = " + number(l.ci_hi) + "\n";
    out += "rss_ratio = " + number(l.rss_ratio) + "\n";
    out += "p = " + number(l.p) + "\n";
    out += "date = " + quoted(l.date) + "\n";
  }
  return out;
}

util::Status update_learned(const std::string& path, const std::function<bool(std::vector<Learned>&)>& change,
                            bool start_over_if_broken) {
  auto lock = util::lock_beside(path);
  if (!lock) return std::move(lock).take_error();
  // Under the rule runs read it by: a learned.toml runs would refuse (another user's, a link
  // another user could have made) is never read back and rewritten as the user's own.
  auto text = util::read_owned(path, util::SharedDirs::none(), 1 << 20);
  if (!text.ok() && !text.absent) return util::fail(text.why());
  auto parsed = text.ok() ? parse_learned(text.content, path) : std::vector<Learned>();
  bool broken = !parsed && start_over_if_broken;
  if (broken) parsed = std::vector<Learned>();
  if (!parsed) return util::fail(parsed.error() + " (fix or remove the file: edashim forget)");
  if (change(*parsed) || broken) {
    if (!util::write_file_atomic(path, render_learned(*parsed), 0600))
      return util::fail("cannot write " + path + ": " + std::strerror(errno));
  }
  return util::Ok{};
}

std::string describe(const Learned& l) {
  std::string what = "allocator ";
  auto open = l.arm.find('[');
  what += open == std::string::npos ? l.arm : l.arm.substr(0, open) + " " + l.arm.substr(open);
  // Printed to a terminal: learned.toml's text is escaped like any text from a log.
  return util::printable(what) + ": learned from " + std::to_string(l.runs) + " runs over " + std::to_string(l.signatures) +
         (l.signatures == 1 ? " command" : " commands") + " on this CPU model, " + two(l.ratio) + "x, 95% CI " +
         two(l.ci_lo) + "-" + two(l.ci_hi) + ", RSS " + two(l.rss_ratio) + "x" +
         (l.replaces.empty() ? "" : " (against " + util::printable(l.replaces) + ")");
}

}  // namespace learn
