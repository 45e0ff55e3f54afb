#include "config/trust.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/fs.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace config {

TrustStore::TrustStore(std::string path) : path_(std::move(path)) {}

std::vector<TrustStore::Entry> TrustStore::read() const {
  std::vector<Entry> out;
  auto text = util::read_file(path_, 4 << 20);
  if (!text) return out;
  for (const auto& line : util::split(*text, '\n')) {
    auto space = line.find(' ');
    if (line.empty() || line[0] == '#' || space != 64) continue;
    out.push_back({line.substr(0, 64), line.substr(65)});
  }
  return out;
}

bool TrustStore::write(const std::vector<Entry>& entries, std::string& error) const {
  if (!util::make_dirs(util::dirname(path_), 0700)) {
    error = "cannot create " + util::dirname(path_);
    return false;
  }
  std::string text = "# edashim trusted project files: sha256 of the content, then the path.\n";
  for (const auto& e : entries) text += e.hash + " " + e.file + "\n";
  if (!util::write_file_atomic(path_, text, 0600)) {
    error = "cannot write " + path_;
    return false;
  }
  return true;
}

bool TrustStore::is_trusted(const std::string& file, const std::string& content) const {
  std::string hash = util::sha256_hex(content);
  for (const auto& e : read())
    if (e.file == file && e.hash == hash) return true;
  return false;
}

bool TrustStore::trust(const std::string& file, const std::string& content, std::string& error) {
  auto entries = read();
  std::erase_if(entries, [&](const Entry& e) { return e.file == file; });
  entries.push_back({util::sha256_hex(content), file});
  return write(entries, error);
}

bool TrustStore::untrust(const std::string& file, std::string& error) {
  auto entries = read();
  size_t before = entries.size();
  std::erase_if(entries, [&](const Entry& e) { return e.file == file; });
  if (entries.size() == before) {
    error = file + " was not trusted";
    return false;
  }
  return write(entries, error);
}

}  // namespace config
