#pragma once
// Which project files the user has trusted, pinned to their content (as direnv does): a project
// file cannot point the preload at a library of its choosing until its owner says so.
#include <string>
#include <vector>

namespace config {

class TrustStore {
 public:
  explicit TrustStore(std::string path);  // usually $XDG_STATE_HOME/edashim/trusted
  const std::string& path() const { return path_; }
  bool is_trusted(const std::string& file, const std::string& content) const;
  // Records (or re-records after an edit) the file's current content; false when it cannot.
  bool trust(const std::string& file, const std::string& content, std::string& error);
  bool untrust(const std::string& file, std::string& error);

 private:
  struct Entry {
    std::string hash;
    std::string file;
  };
  std::vector<Entry> read() const;
  bool write(const std::vector<Entry>& entries, std::string& error) const;
  std::string path_;
};

}  // namespace config
