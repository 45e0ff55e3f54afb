#include "commands/help_text.hpp"

#include <regex>
#include <sstream>

#include "util/strings.hpp"

namespace commands {
namespace {

// One validator's description ("INT in [1 - 100000]", "{disk,tmpfs}", "POSITIVE") in words.
std::string plain_check(const std::string& check) {
  static const std::regex range(R"(^(?:INT|FLOAT|UINT|NUMBER)? ?in \[(\S+) - (\S+)\]$)");
  std::smatch m;
  if (std::regex_match(check, m, range)) return m[1].str() + " to " + m[2].str();
  if (check.size() > 2 && check.front() == '{' && check.back() == '}') {
    std::string inner = check.substr(1, check.size() - 2);
    for (auto& c : inner)
      if (c == ',') c = '|';
    return inner;
  }
  if (check == "POSITIVE") return "> 0";
  if (check == "NONNEGATIVE") return ">= 0";
  return check;
}

std::string plain_base(const std::string& base) {
  if (base == "INT" || base == "UINT") return "N";
  if (base == "FLOAT") return "NUMBER";
  return base;
}

}  // namespace

std::string plain_type(const std::string& cli11_type) {
  auto parts = util::split(cli11_type, ':');
  if (parts.empty()) return cli11_type;
  std::string base = plain_base(parts[0]);
  std::vector<std::string> checks;
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (!parts[i].empty()) checks.push_back(plain_check(parts[i]));
  if (checks.empty()) return base;
  // A set of words names the values itself; a bound reads after the type ("NUMBER > 0").
  if (checks.size() == 1 && checks[0].find('|') != std::string::npos) return checks[0];
  if (checks.size() == 1 && checks[0][0] == '>') return base + " " + checks[0];
  return base + ", " + util::join(checks, ", ");
}

std::string plain_relations(const std::vector<std::string>& needs, const std::vector<std::string>& excludes) {
  std::vector<std::string> parts;
  if (!needs.empty()) parts.push_back("needs " + util::join(needs, ", "));
  if (!excludes.empty()) parts.push_back("not with " + util::join(excludes, ", "));
  return parts.empty() ? "" : "(" + util::join(parts, "; ") + ")";
}

std::string unknown_command(const std::string& word, const std::vector<std::string>& commands, bool a_program) {
  std::string s = "unknown command '" + util::printable(word) + "'";
  if (auto near = util::nearest(word, commands)) return s + "; did you mean '" + *near + "'? (edashim --help lists them)";
  if (a_program)
    return s + "; to run " + util::printable(word) + " through edashim: edashim run -- " + util::printable(word) +
           " ... (edashim --help lists the commands)";
  return s + " (edashim --help lists them)";
}

std::string PlainFormatter::make_option_opts(const CLI::Option* opt) const {
  if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
  std::ostringstream out;
  if (opt->get_type_size() != 0) {
    if (!opt->get_type_name().empty()) out << " " << plain_type(opt->get_type_name());
    if (!opt->get_default_str().empty()) out << " (default " << opt->get_default_str() << ")";
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out << " ...";
    if (opt->get_required()) out << " (required)";
  }
  if (!opt->get_envname().empty()) out << " (or $" << opt->get_envname() << ")";
  std::vector<std::string> needs, excludes;
  for (const auto* o : opt->get_needs()) needs.push_back(o->get_name());
  for (const auto* o : opt->get_excludes()) excludes.push_back(o->get_name());
  if (auto rel = plain_relations(needs, excludes); !rel.empty()) out << " " << rel;
  return out.str();
}

std::string PlainFormatter::make_usage(const CLI::App* app, std::string name) const {
  std::string usage = CLI::Formatter::make_usage(app, std::move(name));
  if (!app->get_prefix_command()) return usage;
  auto end = usage.find_last_not_of('\n');
  return usage.substr(0, end + 1) + " [--] TOOL [ARGS...]" + usage.substr(end + 1);
}

}  // namespace commands
