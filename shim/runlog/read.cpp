#include "runlog/read.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <cstdlib>

#include "runlog/schema.hpp"

namespace runlog {
namespace {

// Deeper than any line edashim writes (4 levels): a line nested deeper is not a record, and is
// rejected before any recursion could run out of stack (a line nested 200000 deep).
constexpr int kMaxDepth = 64;

// A cursor over one line. Each method returns false on malformed input; callers stop.
struct Scanner {
  const char* p;
  const char* end;

  void ws() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
  }
  bool eat(char c) {
    ws();
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool literal(std::string_view word) {
    if (std::size_t(end - p) < word.size() || std::string_view(p, word.size()) != word) return false;
    p += word.size();
    return true;
  }

  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(unsigned& v) {
    if (end - p < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i, ++p) {
      char c = *p;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else return false;
    }
    return true;
  }
  // Skips a string's body (after the opening quote): memchr finds quotes fast, and a quote
  // counts as closing when an even number of backslashes precedes it.
  bool skip_string_body() {
    for (;;) {
      auto* q = static_cast<const char*>(std::memchr(p, '"', std::size_t(end - p)));
      if (!q) return false;
      const char* b = q;
      while (b > p && b[-1] == '\\') --b;
      p = q + 1;
      if ((q - b) % 2 == 0) return true;
    }
  }
  // A string; decoded into `out` when given, else only skipped.
  bool string(std::string* out) {
    ws();
    if (p >= end || *p != '"') return false;
    ++p;
    if (!out) return skip_string_body();
    if (out) out->clear();
    while (p < end) {
      const char* run = p;
      while (p < end && *p != '"' && *p != '\\') ++p;  // the common case: no escapes
      if (out) out->append(run, std::size_t(p - run));
      if (p >= end) return false;
      if (*p == '"') {
        ++p;
        return true;
      }
      ++p;  // backslash
      if (p >= end) return false;
      char e = *p++;
      switch (e) {
        case 'n': *out += '\n'; break;
        case 't': *out += '\t'; break;
        case 'r': *out += '\r'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'u': {
          unsigned cp;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
            p += 2;
            unsigned lo;
            if (!hex4(lo)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          put_utf8(*out, cp);
          break;
        }
        default: *out += e;  // \" \\ \/
      }
    }
    return false;
  }
  bool number(double& v) {
    ws();
    auto [ptr, ec] = std::from_chars(p, end, v);
    if (ec != std::errc()) return false;
    p = ptr;
    return true;
  }
  // Skips any value, nested or not.
  bool skip() {
    ws();
    if (p >= end) return false;
    switch (*p) {
      case '"': return string(nullptr);
      case '{':
      case '[': {
        // The bulk of a log line (preflight, env_set, processes) is skipped here: jump between
        // structural characters with a table rather than testing each byte four times.
        static const auto structural = [] {
          std::array<bool, 256> t{};
          for (unsigned char c : {'"', '{', '}', '[', ']'}) t[c] = true;
          return t;
        }();
        int depth = 0;
        while (p < end) {
          while (p < end && !structural[static_cast<unsigned char>(*p)]) ++p;
          if (p >= end) return false;
          char c = *p++;
          if (c == '"') {
            if (!skip_string_body()) return false;
          } else if (c == '{' || c == '[') {
            if (++depth > kMaxDepth) return false;
          } else if (--depth == 0) {
            return true;
          }
        }
        return false;
      }
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: {
        double d;
        return number(d);
      }
    }
  }
  bool is_null() {
    ws();
    return p < end && *p == 'n' && literal("null");
  }
  // A figure that can be unknown: null when nobody could measure it (RunRecord::untimed,
  // RunRecord::figures_unknown).
  bool figure(double& v, bool& untimed) {
    if (is_null()) {
      v = 0;
      untimed = true;
      return true;
    }
    return number(v);
  }
  bool optional_long(std::optional<long>& out) {
    if (is_null()) {
      out.reset();
      return true;
    }
    double d;
    if (!number(d)) return false;
    out = long(d);
    return true;
  }
  bool string_or_null(std::string& out) {
    if (is_null()) {
      out.clear();
      return true;
    }
    return string(&out);
  }
  // allocator_verified: a boolean today; a word or an object with "verified" are read too, so
  // that a richer format does not turn every run into "unknown".
  bool verified(std::optional<bool>& out, int depth = 0) {
    ws();
    out.reset();
    if (p >= end) return false;
    if (literal("true")) return out = true, true;
    if (literal("false")) return out = false, true;
    if (is_null()) return true;
    if (*p == '"') {
      std::string w;
      if (!string(&w)) return false;
      if (w == "yes" || w == "true" || w == "verified") out = true;
      else if (w == "no" || w == "false" || w == "not-verified" || w == "mismatch") out = false;
      return true;
    }
    if (*p == '{') {
      if (depth >= kMaxDepth) return false;
      ++p;
      std::string name;
      if (eat('}')) return true;
      do {
        if (!string(&name) || !eat(':')) return false;
        if (name == key::verified) {
          if (!verified(out, depth + 1)) return false;
        } else if (!skip()) {
          return false;
        }
      } while (eat(','));
      return eat('}');
    }
    return skip();
  }
  // An array of strings into `out` (cleared first).
  bool strings(std::vector<std::string>& out) {
    out.clear();
    if (!eat('[')) return false;
    if (eat(']')) return true;
    do {
      out.emplace_back();
      if (!string(&out.back())) return false;
    } while (eat(','));
    return eat(']');
  }
  // An object of which one string field is read (`out` empty when absent or null); anything
  // that is not an object (null) is skipped, and `is_object` says which it was.
  bool field_of_object(std::string_view want, std::string& out, bool* is_object = nullptr) {
    ws();
    out.clear();
    if (is_object) *is_object = false;
    if (p >= end || *p != '{') return skip();
    ++p;
    if (is_object) *is_object = true;
    std::string name;
    if (eat('}')) return true;
    do {
      if (!string(&name) || !eat(':')) return false;
      if (name == want) {
        if (!string_or_null(out)) return false;
      } else if (!skip()) {
        return false;
      }
    } while (eat(','));
    return eat('}');
  }
  // "processes": null when the probe did not run; else an array of objects, of which the
  // largest "vm_peak_kb" is kept (null or absent in a record: that process did not say).
  bool processes(std::optional<double>& vm_peak, bool& probed) {
    vm_peak.reset();
    probed = false;
    if (is_null()) return true;
    if (!eat('[')) return skip();
    probed = true;
    if (eat(']')) return true;
    std::string name;
    do {
      ws();
      if (p >= end || *p != '{') {
        if (!skip()) return false;
        continue;
      }
      ++p;
      if (eat('}')) continue;
      do {
        if (!string(&name) || !eat(':')) return false;
        if (name == key::vm_peak_kb) {
          if (is_null()) continue;  // consumed: that process did not say
          double v;
          if (!number(v)) return false;
          if (!vm_peak || v > *vm_peak) vm_peak = v;
        } else if (!skip()) {
          return false;
        }
      } while (eat(','));
      if (!eat('}')) return false;
    } while (eat(','));
    return eat(']');
  }
  // "explore": null when the run ran the current choice, an object when it explored.
  bool explore(bool& explored) {
    ws();
    explored = p < end && *p == '{';
    return skip();
  }
};

}  // namespace

// The scanner dispatches on a name's first letter: the schema's names must start with these.
static_assert(key::argv[0] == 'a' && key::allocator[0] == 'a' && key::allocator_verified[0] == 'a');
static_assert(key::cwd[0] == 'c' && key::exit_code[0] == 'e' && key::max_rss_kb[0] == 'm');
static_assert(key::profile[0] == 'p' && key::tool[0] == 't' && key::user_s[0] == 'u');
static_assert(key::arm[0] == 'a' && key::machine[0] == 'm' && key::signature[0] == 's' &&
              key::explore[0] == 'e' && key::record[0] == 'r' && key::identical_arms[0] == 'i' &&
              key::differing_arms[0] == 'd' && key::path[0] == 'p' && key::host[0] == 'h' &&
              key::processes[0] == 'p');
static_assert(key::bench[0] == 'b' && key::notices[0] == 'n');
static_assert(key::run_id[0] == 'r' && key::flow[0] == 'f' && key::parent_run[0] == 'p');
static_assert(key::wall_s[0] == 'w' && key::start_unix[0] == 's' && key::signal[0] == 's' &&
              key::status[0] == 's' && key::sys_s[0] == 's');

bool parse_run_line(std::string_view line, RunRecord& r) {
  Scanner s{line.data(), line.data() + line.size()};
  r = RunRecord{};  // every field to its default: nothing of a previous line survives
  if (!s.eat('{')) return false;
  if (s.eat('}')) return true;
  std::string name;
  name.reserve(32);
  do {
    if (!s.string(&name) || !s.eat(':')) return false;
    bool good = true;
    // Dispatch on the first letter first: most keys are skipped after one comparison.
    switch (name.empty() ? 0 : name[0]) {
      case 'a':
        if (name == key::argv) {
          good = s.strings(r.argv);
        } else if (name == key::arm) {
          good = s.string_or_null(r.arm);
        } else if (name == key::allocator_verified) {
          good = s.verified(r.allocator_verified);
        } else if (name == key::allocator) {
          good = s.field_of_object(key::requested, r.allocator_requested);
        } else {
          good = s.skip();
        }
        break;
      case 'b': good = name == key::bench ? s.field_of_object(key::experiment, r.bench_experiment) : s.skip(); break;
      case 'c':
        good = name == key::cwd ? s.string_or_null(r.cwd)
               : name == key::config_error ? s.string_or_null(r.config_error) : s.skip();
        break;
      case 'd': good = name == key::differing_arms ? s.strings(r.differing_arms) : s.skip(); break;
      case 'e':
        good = name == key::exit_code ? s.optional_long(r.exit_code)
               : name == key::explore ? s.explore(r.explored)
               : name == key::ended   ? s.string_or_null(r.ended) : s.skip();
        break;
      case 'f': good = name == key::flow ? s.string_or_null(r.flow) : s.skip(); break;
      case 'h': good = name == key::host ? s.string_or_null(r.host) : s.skip(); break;
      case 'n': good = name == key::notices ? (s.is_null() || s.strings(r.notices)) : s.skip(); break;
      case 'i': good = name == key::identical_arms ? s.strings(r.identical_arms) : s.skip(); break;
      case 'm':
        good = name == key::max_rss_kb ? s.figure(r.max_rss_kb, r.figures_unknown)
               : name == key::machine ? s.field_of_object(key::cpu, r.cpu, &r.has_machine) : s.skip();
        break;
      case 'p':
        good = name == key::profile     ? s.string_or_null(r.profile)
               : name == key::path      ? s.string_or_null(r.path)
               : name == key::processes ? s.processes(r.vm_peak_kb, r.probed)
               : name == key::parent_run ? s.string_or_null(r.parent_run)
                                          : s.skip();
        break;
      case 'r':
        good = name == key::record ? s.string_or_null(r.record)
               : name == key::run_id ? s.string_or_null(r.run_id) : s.skip();
        break;
      case 's':
        if (name == key::start_unix) good = s.number(r.start_unix);
        else if (name == key::signature) good = s.string_or_null(r.signature);
        else if (name == key::signal) good = s.optional_long(r.signal);
        else if (name == key::status) good = s.optional_long(r.status);
        else if (name == key::sys_s) good = s.figure(r.sys_s, r.figures_unknown);
        else good = s.skip();
        break;
      case 't': good = name == key::tool ? s.string_or_null(r.tool) : s.skip(); break;
      case 'u': good = name == key::user_s ? s.figure(r.user_s, r.figures_unknown) : s.skip(); break;
      case 'w': good = name == key::wall_s ? s.figure(r.wall_s, r.untimed) : s.skip(); break;
      default: good = s.skip();
    }
    if (!good) return false;
  } while (s.eat(','));
  return s.eat('}');
}

}  // namespace runlog
