#pragma once
// The one way a command speaks to its user on stderr: each line of a text as "WHO: line", the
// whole text in one write(2), so that words of processes sharing the stream (a build's log, a
// farm task's) do not interleave mid-line. WHO is the caller's (a command's name): util/ knows
// no product words. An error travels up as a util::Result to the command, which says its
// reason here; nothing below a command writes to stderr on its own.
#include <sstream>
#include <string>
#include <string_view>

namespace util {

class Voice {
 public:
  explicit Voice(std::string who) : who_(std::move(who)) {}
  // A Voice that keeps what it says in `*kept` instead of writing it: for tests.
  Voice(std::string who, std::string* kept) : who_(std::move(who)), kept_(kept) {}

  // "WHO: line\n" for each line of `text` (a trailing newline adds no empty line). Pure.
  std::string lines(std::string_view text) const;
  // Writes lines(text) to stderr (or keeps it).
  void say(std::string_view text) const;
  // Says `line`, then `details` as written (lines the caller indents under it, not "WHO: "
  // again), in the same write.
  void say_with(std::string_view line, std::string_view details) const;
  // The parts streamed into one text, then said: voice("ignoring ", n, " lines of ", file).
  template <class... Parts>
  void operator()(const Parts&... parts) const {
    std::ostringstream text;
    (text << ... << parts);
    say(text.str());
  }
  // Says `text` and gives back `code`, for `return voice.fail(r.error());`.
  int fail(std::string_view text, int code = 1) const {
    say(text);
    return code;
  }
  const std::string& who() const { return who_; }

 private:
  void write(const std::string& out) const;
  std::string who_;
  std::string* kept_ = nullptr;
};

}  // namespace util
