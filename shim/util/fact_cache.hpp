#pragma once
// Facts derived from a file's contents, remembered by the file's identity (device, inode, size,
// modification time) so that repeated runs pay one stat() for them. A text file of one line per
// file; a damaged line is dropped, never fatal. Knows nothing about what the facts mean.
#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace util {

// What identifies one version of a file. A rebuilt or replaced tool differs in at least one.
struct FileStamp {
  uint64_t dev = 0, ino = 0;
  int64_t size = 0, mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
  static FileStamp of(const struct stat& st);
};

using Facts = std::map<std::string, std::string>;

struct CacheEntry {
  FileStamp stamp;
  Facts facts;
};

// Pure: the file format. Lines that do not parse are skipped.
std::vector<CacheEntry> parse_fact_cache(std::string_view text);
std::string serialize_fact_cache(const std::vector<CacheEntry>& entries);

class FactCache {
 public:
  // `path` empty: a cache in memory only (tests, unusable cache directory).
  explicit FactCache(std::string path);
  std::optional<Facts> get(const FileStamp& stamp);
  void put(const FileStamp& stamp, Facts facts);
  // Writes the cache if anything changed: merged with what other runs wrote meanwhile, newest
  // last, at most `kMaxEntries`, through a temporary file and rename. False when it could not.
  bool save();
  const std::string& path() const { return path_; }

  static constexpr size_t kMaxEntries = 1000;

 private:
  void load();
  std::string path_;
  bool loaded_ = false;
  std::string text_;  // the file as read (it starts with the header line, so every entry follows a newline)
  std::vector<CacheEntry> changed_;
};


}  // namespace util
