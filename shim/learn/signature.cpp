#include "learn/signature.hpp"

#include <cctype>

#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace learn {
namespace {

// What an option's value is, for the signature.
enum class Value {
  none,    // a flag: no value
  keep,    // kept as written (a command string, a seed, a channel width), temporary paths aside
  out,     // an output or log file: "<out>", whatever it is called this time
  script,  // a script the tool runs: its contents (temporary paths aside) are hashed in
  file,    // an input file: by its name, not its directory or contents
};

struct Option {
  std::string_view name;
  Value value;
};

// Short options, getopt style ("-ql log" is "-q -l log"). From `yosys -h` (0.27) and abc's
// main.c (-c/-q/-C commands, -f/-F sourced scripts, -o output, -t/-T formats).
constexpr Option kYosys[] = {{"l", Value::out}, {"L", Value::out}, {"o", Value::out}, {"E", Value::out},
                             {"s", Value::script}, {"c", Value::script}, {"p", Value::keep}, {"b", Value::keep},
                             {"f", Value::keep}, {"h", Value::keep}, {"v", Value::keep}, {"r", Value::keep},
                             {"D", Value::keep}, {"P", Value::keep}, {"W", Value::keep}, {"w", Value::keep},
                             {"e", Value::keep}, {"x", Value::keep}, {"m", Value::file}};
constexpr Option kAbc[] = {{"c", Value::keep}, {"q", Value::keep}, {"C", Value::keep}, {"f", Value::script},
                           {"F", Value::script}, {"o", Value::out}, {"t", Value::keep}, {"T", Value::keep}};

// Long options ("--name value" or "--name=value") whose value is not simply kept or a file.
// VPR: the files each stage writes (or a later stage reads back) are per run; nextpnr: its
// outputs, and the Python scripts it runs at each stage.
constexpr Option kVpr[] = {{"--out_file_prefix", Value::out}, {"--net_file", Value::out}, {"--place_file", Value::out},
                           {"--route_file", Value::out}, {"--write_rr_graph", Value::out}, {"--sdf_file", Value::out},
                           {"--write_timing_summary", Value::out}, {"--write_placement_delay_lookup", Value::out},
                           {"--write_router_lookahead", Value::out}, {"--graphics_commands", Value::keep}};
constexpr Option kNextpnr[] = {{"--asc", Value::out}, {"--write", Value::out}, {"--sdf", Value::out},
                               {"--report", Value::out}, {"--log", Value::out}, {"-l", Value::out},
                               {"--placed-svg", Value::out}, {"--routed-svg", Value::out}, {"--pre-pack", Value::script},
                               {"--pre-place", Value::script}, {"--pre-route", Value::script},
                               {"--post-route", Value::script}, {"--run", Value::script}};
// Any other tool: the usual spellings of an output file.
constexpr Option kGeneric[] = {{"-o", Value::out}, {"--out", Value::out}, {"--output", Value::out},
                               {"--output-file", Value::out}, {"--log", Value::out}, {"--log-file", Value::out}};

template <size_t N>
std::optional<Value> lookup(const Option (&table)[N], std::string_view name) {
  for (const auto& o : table)
    if (o.name == name) return o.value;
  return std::nullopt;
}

enum class Style { yosys, abc, vpr, nextpnr, generic };

Style style_of(const std::string& tool) {
  if (tool == "yosys") return Style::yosys;
  if (tool == "yosys-abc" || tool == "berkeley-abc" || tool == "abc") return Style::abc;
  if (tool == "vpr") return Style::vpr;
  if (util::starts_with(tool, "nextpnr")) return Style::nextpnr;
  return Style::generic;
}

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A name mktemp, tempfile or Python's tempfile would make: "tmp.Xa3kQ9zL1c", "tmpk3j_x8aq",
// or a random tail of 6 or more letters and digits mixing upper case with digits or lower
// case ("yosys-abc-Qx7aLm"). A design's own names rarely look like that.
bool mktemp_like(std::string_view name) {
  if (util::starts_with(name, "tmp") && name.size() >= 9) {
    auto rest = name.substr(name[3] == '.' || name[3] == '-' || name[3] == '_' ? 4 : 3);
    rest = rest.substr(0, rest.find('.'));  // "tmpk3j_x8aq.smt2": the name, not its extension
    bool random = rest.size() >= 6;
    for (char c : rest) random = random && (is_alnum(c) || c == '_');
    if (random) return true;
  }
  size_t cut = name.find_last_of(".-_");
  if (cut == std::string_view::npos) return false;
  auto tail = name.substr(cut + 1);
  if (tail.size() < 6) return false;
  // The names yosys gives abc's directory (mkdtemp's "yosys-abc-XXXXXX", "_tmp_" in front with
  // -nocleanup): any tail, since mkdtemp's may have no upper case (one in 26 of them).
  if (name.substr(0, cut + 1).find("yosys-abc-") != std::string_view::npos) {
    bool alnum = true;
    for (char c : tail) alnum = alnum && is_alnum(c);
    if (alnum) return true;
  }
  bool upper = false, lower = false, digit = false;
  for (char c : tail) {
    if (!is_alnum(c)) return false;
    upper |= std::isupper(static_cast<unsigned char>(c)) != 0;
    lower |= std::islower(static_cast<unsigned char>(c)) != 0;
    digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
  }
  return upper && (lower || digit);
}

std::string trimmed_dir(std::string d) {
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d;
}

// An input file by name: its directory is where this checkout happens to be.
std::string file_token(const std::string& path, const std::vector<std::string>& temp_dirs) {
  if (is_temporary(path, temp_dirs)) return "<tmp>";
  if (path.find('/') == std::string::npos) return path;
  std::string base = util::basename(path);
  return base.empty() ? path : base;
}

// A value kept as written: a command string, a number, a name.
std::string keep_token(const std::string& v, const std::vector<std::string>& temp_dirs) {
  if (v.find('/') == std::string::npos) return v;
  if (v.find_first_of(" \t;\n") == std::string::npos) return file_token(v, temp_dirs);
  return without_temporary_paths(v, temp_dirs);
}

class Normaliser {
 public:
  explicit Normaliser(const SignatureInput& in) : in_(in) {}

  std::string value(Value kind, const std::string& v) {
    switch (kind) {
      case Value::out: return "<out>";
      case Value::script: return script(v);
      case Value::file: return file_token(v, in_.temp_dirs);
      case Value::keep:
      case Value::none: break;
    }
    return keep_token(v, in_.temp_dirs);
  }

  // The script's contents, with the temporary paths in them normalised (yosys writes abc a
  // script naming its temporary directory), hashed: a changed script is a different flow.
  std::string script(const std::string& path) {
    auto content = in_.read ? in_.read(path) : std::nullopt;
    if (!content) return "<unreadable:" + file_token(path, in_.temp_dirs) + ">";
    return "<script:" + util::sha256_hex(without_temporary_paths(*content, in_.temp_dirs)).substr(0, 16) + ">";
  }

  std::string positional(const std::string& v) { return file_token(v, in_.temp_dirs); }

 private:
  const SignatureInput& in_;
};

// getopt-style short options: a cluster "-ql" is split, a value attached ("-lfile") or next.
template <size_t N>
void short_options(const std::vector<std::string>& args, const Option (&table)[N], Normaliser& norm,
                   std::vector<std::string>& out, const std::function<std::string(const std::string&)>& positional) {
  bool options_end = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_end || a.size() < 2 || a[0] != '-') {
      out.push_back(positional(a));
      continue;
    }
    if (a == "--") {
      options_end = true;
      out.push_back(a);
      continue;
    }
    for (size_t k = 1; k < a.size(); ++k) {
      std::string flag = "-" + a.substr(k, 1);
      auto kind = lookup(table, std::string_view(a).substr(k, 1));
      if (!kind) {
        out.push_back(flag);
        continue;
      }
      out.push_back(flag);
      if (k + 1 < a.size()) out.push_back(norm.value(*kind, a.substr(k + 1)));
      else if (i + 1 < args.size()) out.push_back(norm.value(*kind, args[++i]));
      break;
    }
  }
}

// Long options: "--name=value", or "--name value" when the next word is not an option.
template <size_t N>
void long_options(const std::vector<std::string>& args, const Option (&table)[N], Normaliser& norm,
                  std::vector<std::string>& out, const std::function<std::string(size_t, const std::string&)>& positional) {
  size_t positionals = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') {
      out.push_back(positional(positionals++, a));
      continue;
    }
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    auto kind = lookup(table, name);
    if (eq != std::string::npos) {
      out.push_back(name + "=" + norm.value(kind.value_or(Value::keep), a.substr(eq + 1)));
    } else if (kind && i + 1 < args.size()) {
      out.push_back(name);
      out.push_back(norm.value(*kind, args[++i]));
    } else {
      out.push_back(a);
      // The next word is this option's value when it is not an option itself ("--seed 3",
      // "--route_chan_width 100"): kept, or a file by name.
      if (util::starts_with(a, "--") && i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-')
        out.push_back(norm.value(Value::keep, args[++i]));
    }
  }
}

std::string quoted(const std::string& token) {
  bool plain = !token.empty() && token.find_first_of(" \t\n'\"\\") == std::string::npos;
  if (plain) return token;
  std::string q = "'";
  for (char c : token) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

bool is_temporary(const std::string& path, const std::vector<std::string>& temp_dirs) {
  if (path.empty()) return false;
  if (path[0] == '/') {
    for (const auto& raw : temp_dirs) {
      std::string d = trimmed_dir(raw);
      if (d.empty() || d == "/" || d[0] != '/') continue;
      if (path == d || util::starts_with(path, d + "/")) return true;
    }
  }
  for (const auto& part : util::split(path, '/'))
    if (mktemp_like(part)) return true;
  return false;
}

std::string without_temporary_paths(const std::string& text, const std::vector<std::string>& temp_dirs) {
  // Words (between blanks, quotes, ';', '=', parentheses and commas) that are paths: an
  // absolute one under a temporary directory, or one with a component mktemp would name
  // (yosys -nocleanup writes abc "_tmp_yosys-abc-Qx7aLm/input.blif", relative).
  static constexpr std::string_view kDelimiters = " \t\n;=\"'(),";
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (kDelimiters.find(text[i]) != std::string_view::npos) {
      out += text[i++];
      continue;
    }
    size_t end = text.find_first_of(kDelimiters, i);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(i, end - i);
    out += word.find('/') != std::string::npos && is_temporary(word, temp_dirs) ? "<tmp>" : word;
    i = end;
  }
  return out;
}

Signature signature(const SignatureInput& in) {
  std::vector<std::string> args(in.argv.size() > 1 ? in.argv.begin() + 1 : in.argv.end(), in.argv.end());
  std::vector<std::string> tokens{in.tool};
  Normaliser norm(in);
  switch (style_of(in.tool)) {
    case Style::yosys:
      // A .ys or .tcl file given as an argument is run as a script; anything else is a design.
      short_options(args, kYosys, norm, tokens, [&](const std::string& a) {
        bool script = a.size() > 3 && (a.compare(a.size() - 3, 3, ".ys") == 0 || (a.size() > 4 && a.compare(a.size() - 4, 4, ".tcl") == 0));
        return script ? norm.script(a) : norm.positional(a);
      });
      break;
    case Style::abc:
      short_options(args, kAbc, norm, tokens, [&](const std::string& a) { return norm.positional(a); });
      break;
    case Style::vpr:
      // `vpr ARCH CIRCUIT [options]`: the architecture decides the flow (its contents), the
      // circuit is the design (its name).
      long_options(args, kVpr, norm, tokens, [&](size_t n, const std::string& a) {
        return n == 0 ? norm.script(a) : norm.positional(a);
      });
      break;
    case Style::nextpnr:
      long_options(args, kNextpnr, norm, tokens, [&](size_t, const std::string& a) { return norm.positional(a); });
      break;
    case Style::generic:
      long_options(args, kGeneric, norm, tokens, [&](size_t, const std::string& a) { return norm.positional(a); });
      break;
  }
  Signature s;
  for (const auto& t : tokens) s.text += (s.text.empty() ? "" : " ") + quoted(t);
  s.hex = util::sha256_hex(s.text).substr(0, 16);
  return s;
}

}  // namespace learn
