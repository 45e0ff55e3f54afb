#include "util/fact_cache.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <tuple>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace util {
namespace {

constexpr std::string_view kHeader = "# file facts v1: dev ino size mtime_ns key=value...\n";


template <class T>
std::optional<T> number(const std::string& s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  auto v = std::strtoll(s.c_str(), &end, 10);
  if (*end || errno) {
    // inode and device numbers may exceed LLONG_MAX
    errno = 0;
    auto u = std::strtoull(s.c_str(), &end, 10);
    if (*end || errno || s[0] == '-') return std::nullopt;
    return T(u);
  }
  return T(v);
}

}  // namespace

FileStamp FileStamp::of(const struct stat& st) {
  return {uint64_t(st.st_dev), uint64_t(st.st_ino), int64_t(st.st_size),
          int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

std::vector<CacheEntry> parse_fact_cache(std::string_view text) {
  std::vector<CacheEntry> out;
  for (const auto& line : split(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    auto fields = split(line, '\t');
    if (fields.size() < 4) continue;
    auto dev = number<uint64_t>(fields[0]), ino = number<uint64_t>(fields[1]);
    auto size = number<int64_t>(fields[2]), mtime = number<int64_t>(fields[3]);
    if (!dev || !ino || !size || !mtime) continue;
    CacheEntry e{{*dev, *ino, *size, *mtime}, {}};
    bool ok = true;
    for (size_t i = 4; i < fields.size() && ok; ++i) {
      auto eq = fields[i].find('=');
      auto key = eq == std::string::npos ? std::nullopt : util::tsv_unescape(std::string_view(fields[i]).substr(0, eq));
      auto value = eq == std::string::npos ? std::nullopt : util::tsv_unescape(std::string_view(fields[i]).substr(eq + 1));
      if (!key || !value || key->empty()) ok = false;
      else e.facts[*key] = *value;
    }
    if (!ok) continue;
    out.push_back(std::move(e));
  }
  // A later line for the same file replaces an earlier one (linear: the file holds up to a
  // thousand lines, and every first run of a new tool merges it).
  std::set<std::tuple<uint64_t, uint64_t, int64_t, int64_t>> seen;
  std::vector<CacheEntry> last;
  for (auto it = out.rbegin(); it != out.rend(); ++it)
    if (seen.insert({it->stamp.dev, it->stamp.ino, it->stamp.size, it->stamp.mtime_ns}).second) last.push_back(std::move(*it));
  std::reverse(last.begin(), last.end());
  return last;
}

namespace {
std::string stamp_prefix(const FileStamp& s) {
  return std::to_string(s.dev) + "\t" + std::to_string(s.ino) + "\t" + std::to_string(s.size) + "\t" +
         std::to_string(s.mtime_ns);
}
}  // namespace

std::string serialize_fact_cache(const std::vector<CacheEntry>& entries) {
  std::string out(kHeader);
  for (const auto& e : entries) {
    out += stamp_prefix(e.stamp);
    for (const auto& [k, v] : e.facts) {
      out += '\t';
      out += util::tsv_escape(k);
      out += '=';
      out += util::tsv_escape(v);
    }
    out += "\n";
  }
  return out;
}

FactCache::FactCache(std::string path) : path_(std::move(path)) {}

void FactCache::load() {
  if (loaded_) return;
  loaded_ = true;
  if (path_.empty()) return;
  if (auto text = read_file(path_, 8 << 20)) text_ = std::move(*text);
}

std::optional<Facts> FactCache::get(const FileStamp& stamp) {
  load();
  for (auto it = changed_.rbegin(); it != changed_.rend(); ++it)
    if (it->stamp == stamp) return it->facts;
  // Only the line asked for is parsed, the last one for this file: a run looks up one or two
  // files in a cache of up to a thousand.
  std::string key = "\n" + stamp_prefix(stamp);
  for (size_t at = text_.rfind(key); at != std::string::npos; at = at ? text_.rfind(key, at - 1) : std::string::npos) {
    size_t begin = at + 1, after = begin + key.size() - 1;
    if (after < text_.size() && text_[after] != '\t' && text_[after] != '\n') continue;  // a longer number
    size_t end = text_.find('\n', begin);
    auto entries = parse_fact_cache(std::string_view(text_).substr(begin, end == std::string::npos ? end : end - begin));
    if (!entries.empty()) return entries.back().facts;
  }
  return std::nullopt;
}

void FactCache::put(const FileStamp& stamp, Facts facts) {
  load();
  std::erase_if(changed_, [&](const CacheEntry& e) { return e.stamp == stamp; });
  changed_.push_back({stamp, std::move(facts)});
}

bool FactCache::save() {
  if (changed_.empty() || path_.empty()) return true;
  // Merge with what other processes wrote since we read it: at worst two runs racing
  // both lose one entry and inspect that file again next time.
  std::vector<CacheEntry> merged;
  if (auto text = read_file(path_, 8 << 20)) merged = parse_fact_cache(*text);
  for (auto& c : changed_) {
    std::erase_if(merged, [&](const CacheEntry& e) { return e.stamp == c.stamp; });
    merged.push_back(c);
  }
  if (merged.size() > kMaxEntries) merged.erase(merged.begin(), merged.end() - kMaxEntries);
  if (!make_dirs(dirname(path_), 0700)) return false;
  std::string text = serialize_fact_cache(merged);
  if (!write_file_atomic(path_, text, 0600)) return false;
  text_ = std::move(text);
  changed_.clear();
  return true;
}

}  // namespace util
