#include "pipeline/unfinished.hpp"

#include <cerrno>
#include <cstdlib>

#include "alloc/allocators.hpp"
#include "util/strings.hpp"

namespace pipeline {
namespace {

// Bumped when a field changes: an edashim replaced while a run was going on finishes nothing
// it cannot read (a later sweep says the run ended without a word).
constexpr const char* kFormat = "edashim-unfinished 2";

void put(std::string& out, std::string_view key, std::string_view value) {
  out.append(key);
  out += '\t';
  out += util::tsv_escape(value);
  out += '\n';
}

std::optional<long long> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end || errno) return std::nullopt;
  return v;
}

}  // namespace

std::string unfinished_text(const Unfinished& u) {
  std::string out = std::string(kFormat) + "\n";
  put(out, "pid", std::to_string(u.pid));
  put(out, "start_ns", std::to_string(u.start_ns));
  put(out, "own", std::to_string(u.own.utime_us) + " " + std::to_string(u.own.stime_us) + " " +
                      std::to_string(u.own.cutime_us) + " " + std::to_string(u.own.cstime_us) + " " +
                      std::to_string(u.own.maxrss_kb));
  put(out, "log", u.log);
  put(out, "log_dev", std::to_string(u.log_dev));
  put(out, "log_ino", std::to_string(u.log_ino));
  put(out, "log_max_bytes", std::to_string(u.limits.max_bytes));
  put(out, "log_keep", std::to_string(u.limits.keep));
  for (const auto& d : u.shared_dirs) put(out, "shared_dir", d);
  put(out, "scratch", u.scratch);
  put(out, "keep_scratch", u.keep_scratch ? "1" : "0");
  put(out, "probe_file", u.probe_file);
  put(out, "probed", u.verify.probed ? "1" : "0");
  put(out, "unprobed_note", u.verify.unprobed_note);
  put(out, "flow_top", u.verify.flow_top ? "1" : "0");
  put(out, "allocator_to_find", u.verify.allocator_to_find);
  put(out, "launcher", u.verify.launcher);
  put(out, "nothing_recorded_suffix", u.verify.nothing_recorded_suffix);
  for (const auto& b : u.sweep_bases) put(out, "sweep_base", b);
  // How the probe's finish names what served malloc (run::malloc_provider).
  for (const auto& [prefix, family] : alloc::allocator_file_prefixes()) put(out, "provider", prefix + " " + family);
  put(out, "line", u.line);
  return out;
}

namespace {

// One "KEY<tab>VALUE" of the record into `u`; false for a key or value this format does not have.
bool take_field(Unfinished& u, const std::string& key, const std::string& v) {
  auto flag = [&](bool& out) {
    out = v == "1";
    return v == "1" || v == "0";
  };
  bool ok = true;
  if (key == "pid") {
    auto n = number(v);
    ok = n && *n > 0;
    if (ok) u.pid = long(*n);
  } else if (key == "start_ns") {
    auto n = number(v);
    ok = n && *n > 0;
    if (ok) u.start_ns = *n;
  } else if (key == "own") {
    auto f = util::split(v, ' ');
    ok = f.size() == 5;
    long long* parts[4] = {&u.own.utime_us, &u.own.stime_us, &u.own.cutime_us, &u.own.cstime_us};
    for (size_t k = 0; ok && k < 5; ++k) {
      auto n = number(f[k]);
      ok = n && *n >= 0;
      if (ok && k < 4) *parts[k] = *n;
      if (ok && k == 4) u.own.maxrss_kb = long(*n);
    }
  } else if (key == "log") {
    u.log = v;
  } else if (key == "log_dev" || key == "log_ino") {
    auto n = number(v);
    ok = n && *n >= 0;
    if (ok) (key == "log_dev" ? u.log_dev : u.log_ino) = (unsigned long long)*n;
  } else if (key == "provider") {
    ok = v.find(' ') != std::string::npos;  // the registry's, written again by every edashim
  } else if (key == "log_max_bytes" || key == "log_keep") {
    auto n = number(v);
    ok = n && *n >= 0;
    if (ok) (key == "log_keep" ? u.limits.keep : u.limits.max_bytes) = *n;
  } else if (key == "shared_dir") {
    u.shared_dirs.push_back(v);
  } else if (key == "scratch") {
    u.scratch = v;
  } else if (key == "keep_scratch") {
    ok = flag(u.keep_scratch);
  } else if (key == "probe_file") {
    u.probe_file = v;
  } else if (key == "probed") {
    ok = flag(u.verify.probed);
  } else if (key == "unprobed_note") {
    u.verify.unprobed_note = v;
  } else if (key == "flow_top") {
    ok = flag(u.verify.flow_top);
  } else if (key == "allocator_to_find") {
    u.verify.allocator_to_find = v;
  } else if (key == "launcher") {
    u.verify.launcher = v;
  } else if (key == "nothing_recorded_suffix") {
    u.verify.nothing_recorded_suffix = v;
  } else if (key == "sweep_base") {
    u.sweep_bases.push_back(v);
  } else if (key == "line") {
    // An object begun and left open, with its fields: what JsonWriter::continuing_object takes.
    ok = v.empty() || (v.size() > 2 && v.front() == '{' && v.back() != ',' && v.back() != '{');
    u.line = v;
  } else {
    ok = false;
  }
  return ok;
}

}  // namespace

util::Result<Unfinished> parse_unfinished(std::string_view text) {
  auto lines = util::split(text, '\n');
  if (lines.empty() || lines[0] != kFormat) return util::fail("not an unfinished line of this edashim's format");
  Unfinished u;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto tab = lines[i].find('\t');
    if (tab == std::string::npos) return util::fail("line " + std::to_string(i + 1) + " has no value");
    std::string key = lines[i].substr(0, tab);
    auto value = util::tsv_unescape(std::string_view(lines[i]).substr(tab + 1));
    if (!value) return util::fail("line " + std::to_string(i + 1) + ": a damaged value");
    if (!take_field(u, key, *value)) return util::fail("line " + std::to_string(i + 1) + ": " + key + " is not valid");
  }
  if ((u.line.empty() && !u.log.empty()) || u.start_ns <= 0) return util::fail("the line's start or its clock is missing");
  return u;
}

}  // namespace pipeline
