#include "util/voice.hpp"

#include <unistd.h>

#include <cerrno>

namespace util {

std::string Voice::lines(std::string_view text) const {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::string out;
  for (;;) {
    auto end = text.find('\n');
    out += who_;
    out += ": ";
    out += text.substr(0, end);
    out += '\n';
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

namespace {

void write_all(const std::string& out) {
  // One write for the whole text; a short write (a pipe's reader slower than us) goes on.
  for (std::size_t done = 0; done < out.size();) {
    ssize_t n = ::write(STDERR_FILENO, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // stderr closed: nobody to tell, and the run must go on
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void Voice::write(const std::string& out) const {
  if (kept_) *kept_ += out;
  else write_all(out);
}

void Voice::say(std::string_view text) const { write(lines(text)); }

void Voice::say_with(std::string_view line, std::string_view details) const {
  std::string out = lines(line);
  out += details;
  if (!details.empty() && details.back() != '\n') out += '\n';
  write(out);
}

}  // namespace util
