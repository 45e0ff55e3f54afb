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

#include "util/result.hpp"

namespace config {

// The same store holds the other decision, "never" (`edashim trust --ignore`, direnv's deny,
// mise's trust --ignore): the project files the user chose not to use, pinned the same way, in
// a file of its own beside it (first line "edashim-ignored 1"), so that an edashim that knows
// only trust still reads its store.
enum class Decision { trusted, ignored };

// Where the ignored files are kept, beside the trust store `trust_file`.
std::string ignore_store_path(const std::string& trust_file);

class TrustStore {
 public:
  explicit TrustStore(std::string path, Decision kind = Decision::trusted);  // usually $XDG_STATE_HOME/edashim/trusted
  const std::string& path() const { return path_; }
  // "trusted" or "ignored": what an entry of this store means, for messages.
  const char* meaning() const { return kind_ == Decision::trusted ? "trusted" : "ignored"; }
  // `why` gets the reason the store itself cannot be used, if so (the line, what is wrong).
  // Asked by every run for each project file (config::load) and tested as a bool where it is
  // asked: a Result<bool> there would read "answered" where "trusted" is meant.
  bool is_trusted(const std::string& file, const std::string& content, std::string* why = nullptr) const;
  // The same question of a store of either kind: does it hold `file` with exactly `content`?
  bool holds(const std::string& file, const std::string& content, std::string* why = nullptr) const {
    return is_trusted(file, content, why);
  }
  // What a change did besides its own work, for the command to say.
  struct Changed {
    bool was_there = false;  // remove: the file had an entry
    std::string set_aside;   // the old-format store's new name, when it was set aside to start anew
  };
  // Records (or re-records after an edit) the file's current content, or why it cannot.
  // Read, change and write happen under a lock, so two at once lose neither entry.
  util::Result<Changed> trust(const std::string& file, const std::string& content);
  util::Result<Changed> untrust(const std::string& file);
  // Removes the file's entry if there is one (`was_there` says whether); fails only when the
  // store cannot be read or written.
  util::Result<Changed> remove(const std::string& file);
  // What to tell the user when a change set the old store aside (Changed::set_aside).
  static std::string set_aside_note(const std::string& aside);

  struct Entry {
    std::string hash;
    std::string file;
  };
  // Pure: the store's text to entries, or why not (naming the line) when any line is not
  // exactly an entry, or the store is of another version.
  static util::Result<std::vector<Entry>> parse(std::string_view text, Decision kind = Decision::trusted);
  static std::string render(const std::vector<Entry>& entries, Decision kind = Decision::trusted);
  static std::string escape(std::string_view path);

 private:
  util::Result<std::vector<Entry>> read() const;
  util::Status write(const std::vector<Entry>& entries) const;
  template <class Change>
  util::Result<Changed> modify(Change change);
  std::string path_;
  Decision kind_;
};

}  // namespace config
