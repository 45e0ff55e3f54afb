#pragma once
// Which project files the user has trusted, pinned to the path where each was found and its
// content (as direnv's allow is): a project file cannot point the preload at a library of its
// choosing until its owner says so, and a link is trusted only where the user trusted it.
//
// The store, version 2: a first line "edashim-trust 2", then one line per file,
// "<sha256 hex> <path>", the path escaped so that no byte of it can end the line or look like
// another entry ("\\" for a backslash, "\xHH" for control bytes and DEL). A store with any line
// that does not parse exactly is refused whole (nothing in it is trusted), with a message.
#include <string>
#include <string_view>
#include <vector>

namespace config {

class TrustStore {
 public:
  explicit TrustStore(std::string path);  // usually $XDG_STATE_HOME/edashim/trusted
  const std::string& path() const { return path_; }
  // `why` gets the reason the store itself cannot be used, if so (the line, what is wrong).
  bool is_trusted(const std::string& file, const std::string& content, std::string* why = nullptr) const;
  // Records (or re-records after an edit) the file's current content; false when it cannot.
  // Read, change and write happen under a lock, so two at once lose neither entry.
  bool trust(const std::string& file, const std::string& content, std::string& error);
  bool untrust(const std::string& file, std::string& error);

  struct Entry {
    std::string hash;
    std::string file;
  };
  // Pure: the store's text to entries; false with `error` (naming the line) when any line is
  // not exactly an entry, or the store is of another version.
  static bool parse(std::string_view text, std::vector<Entry>& entries, std::string& error);
  static std::string render(const std::vector<Entry>& entries);
  static std::string escape(std::string_view path);

 private:
  bool read(std::vector<Entry>& entries, std::string& error) const;
  bool write(const std::vector<Entry>& entries, std::string& error) const;
  template <class Change>
  bool modify(Change change, std::string& error);
  std::string path_;
};

}  // namespace config
