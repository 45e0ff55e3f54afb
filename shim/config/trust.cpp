#include "config/trust.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>

#include "util/fs.hpp"
#include "util/owned_file.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace config {
namespace {

constexpr std::string_view kTrustHeader = "edashim-trust 2";
constexpr std::string_view kIgnoreHeader = "edashim-ignored 1";

std::string_view header_of(Decision kind) { return kind == Decision::trusted ? kTrustHeader : kIgnoreHeader; }
constexpr std::string_view kV1Header = "# edashim trusted project files";

bool is_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

int hex_digit(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

// The path of an entry, unescaped; false on any byte or escape escape() would not write.
bool unescape(std::string_view in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(in[i]);
    if (c < 0x20 || c == 0x7f) return false;
    if (c != '\\') {
      out += char(c);
      continue;
    }
    if (i + 1 < in.size() && in[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (i + 3 < in.size() && in[i + 1] == 'x' && hex_digit(in[i + 2]) >= 0 && hex_digit(in[i + 3]) >= 0) {
      int v = hex_digit(in[i + 2]) * 16 + hex_digit(in[i + 3]);
      if (v >= 0x20 && v != 0x7f) return false;  // only what escape() escapes: one spelling per path
      out += char(v);
      i += 3;
    } else {
      return false;
    }
  }
  return !out.empty() && out[0] == '/';
}

}  // namespace

std::string ignore_store_path(const std::string& trust_file) { return util::dirname(trust_file) + "/ignored"; }

TrustStore::TrustStore(std::string path, Decision kind) : path_(std::move(path)), kind_(kind) {}

std::string TrustStore::escape(std::string_view path) {
  std::string out;
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\') out += "\\\\";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string TrustStore::render(const std::vector<Entry>& entries, Decision kind) {
  std::string text = std::string(header_of(kind)) + "\n";
  for (const auto& e : entries) text += e.hash + " " + escape(e.file) + "\n";
  return text;
}

util::Result<std::vector<TrustStore::Entry>> TrustStore::parse(std::string_view text, Decision kind) {
  std::vector<Entry> entries;
  const std::string_view header = header_of(kind);
  if (kind == Decision::trusted && text.substr(0, kV1Header.size()) == kV1Header)
    return util::fail("in edashim's old trust format, where a directory name could forge an entry; nothing in it is trusted "
                      "(`edashim trust` sets it aside and starts a new store: trust your files again)");
  if (text.substr(0, header.size() + 1) != std::string(header) + "\n")
    return util::fail(std::string("line 1: not an edashim ") + (kind == Decision::trusted ? "trust" : "ignore") +
                      " store (expected \"" + std::string(header) + "\"); fix or remove it");
  size_t pos = header.size() + 1;
  int line = 1;
  while (pos < text.size()) {
    ++line;
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      return util::fail("line " + std::to_string(line) + ": cut short (no newline); fix or remove the store");
    std::string_view l = text.substr(pos, end - pos);
    Entry e;
    if (l.size() < 66 || l[64] != ' ' || !is_hex(l.substr(0, 64)) || !unescape(l.substr(65), e.file))
      return util::fail("line " + std::to_string(line) + ": not \"<sha256> <absolute path>\"; fix or remove the store");
    e.hash = std::string(l.substr(0, 64));
    entries.push_back(std::move(e));
    pos = end + 1;
  }
  return entries;
}

util::Result<std::vector<TrustStore::Entry>> TrustStore::read() const {
  // Whoever can write the store decides which project files run unchecked: the owned-file rule.
  auto text = util::read_owned(path_, util::SharedDirs::none(), 4 << 20);
  if (text.absent) return std::vector<Entry>();
  if (!text.ok())
    return util::fail(std::string("cannot use the ") + (kind_ == Decision::trusted ? "trust store" : "store of ignored files") +
                      ": " + text.why());
  return parse(text.content, kind_);
}

util::Status TrustStore::write(const std::vector<Entry>& entries) const {
  if (!util::write_file_atomic(path_, render(entries, kind_), 0600)) return util::fail("cannot write " + path_);
  return util::Ok{};
}

// Read, change, write under the lock beside the store (it is replaced by a rename). `change`
// edits the entries and returns a Status: a failed one leaves the store as it was.
template <class Change>
util::Result<TrustStore::Changed> TrustStore::modify(Change change) {
  auto lock = util::lock_beside(path_);
  if (!lock) return std::move(lock).take_error();
  Changed changed;
  auto entries = read();
  if (!entries && kind_ == Decision::trusted && util::starts_with(util::read_file(path_, 4 << 20).value_or(""), kV1Header)) {
    // The old format cannot be told apart from a forged entry: set it aside, start anew.
    std::string aside = path_ + ".v1";
    if (::rename(path_.c_str(), aside.c_str()) != 0) return util::fail(path_ + ": cannot set the old trust store aside as " + aside);
    changed.set_aside = aside;
    entries = std::vector<Entry>();
  }
  if (!entries) return util::fail(path_ + ": " + entries.error());
  // A failure after the old store was set aside still says where it went (one line before the reason).
  auto failed = [&](const std::string& why) {
    return util::fail(changed.set_aside.empty() ? why : set_aside_note(changed.set_aside) + "\n" + why);
  };
  if (auto done = change(*entries, changed); !done) return failed(done.error());
  if (auto written = write(*entries); !written) return failed(written.error());
  return changed;
}

std::string TrustStore::set_aside_note(const std::string& aside) {
  return "the old trust store is set aside as " + aside + "; trust your other files again";
}

bool TrustStore::is_trusted(const std::string& file, const std::string& content, std::string* why) const {
  auto entries = read();
  if (!entries) {
    if (why) *why = entries.error();
    return false;
  }
  if (entries->empty()) return false;  // most users ignore nothing: no hash needed
  std::string hash = util::sha256_hex(content);
  for (const auto& e : *entries)
    if (e.file == file && e.hash == hash) return true;
  return false;
}

util::Result<TrustStore::Changed> TrustStore::trust(const std::string& file, const std::string& content) {
  return modify([&](std::vector<Entry>& entries, Changed&) -> util::Status {
    std::erase_if(entries, [&](const Entry& e) { return e.file == file; });
    entries.push_back({util::sha256_hex(content), file});
    return util::Ok{};
  });
}

util::Result<TrustStore::Changed> TrustStore::untrust(const std::string& file) {
  return modify([&](std::vector<Entry>& entries, Changed&) -> util::Status {
    size_t before = entries.size();
    std::erase_if(entries, [&](const Entry& e) { return e.file == file; });
    if (entries.size() == before) return util::fail(file + " was not trusted");
    return util::Ok{};
  });
}

util::Result<TrustStore::Changed> TrustStore::remove(const std::string& file) {
  if (!util::exists(path_)) return Changed{};  // nothing recorded: nothing to remove, no store to create
  return modify([&](std::vector<Entry>& entries, Changed& changed) -> util::Status {
    size_t before = entries.size();
    std::erase_if(entries, [&](const Entry& e) { return e.file == file; });
    changed.was_there = entries.size() != before;
    return util::Ok{};
  });
}

}  // namespace config
