#include <catch2/catch.hpp>

#include <string>

#include "util/result.hpp"

namespace {
util::Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return util::fail(std::string("'") + c + "' is not a digit; give 0-9");
  return c - '0';
}

util::Result<std::string> twice(char c) {
  auto d = parse_digit(c);
  if (!d) return std::move(d).take_error();
  return std::to_string(*d * 2);
}
}  // namespace

TEST_CASE("Result: a value, or the reason it failed, carried to the caller", "[result]") {
  auto ok = parse_digit('7');
  REQUIRE(ok.ok());
  CHECK(*ok == 7);
  auto bad = parse_digit('x');
  REQUIRE_FALSE(bad);
  CHECK(bad.error() == "'x' is not a digit; give 0-9");
  CHECK(*twice('4') == "8");
  CHECK(twice('y').error() == "'y' is not a digit; give 0-9");
  util::Status done = util::Ok{};
  CHECK(done.ok());
  util::Status failed = util::fail("why");
  CHECK(failed.error() == "why");
}

// util::Fd, the descriptor type: closed when its owner goes, handed on by release or a move.
#include <fcntl.h>

#include "util/fd.hpp"

namespace {
bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }
}  // namespace

TEST_CASE("Fd: closed when its owner goes, kept by release, moved without a second close", "[fd]") {
  int raw;
  {
    util::Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    REQUIRE(fd);
    raw = fd.get();
    CHECK(is_open(raw));
  }
  CHECK_FALSE(is_open(raw));  // an early return leaks nothing

  util::Fd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  raw = a.get();
  util::Fd b(std::move(a));
  CHECK_FALSE(a);
  CHECK(b.get() == raw);
  util::Fd c;
  c = std::move(b);
  CHECK(c.get() == raw);
  CHECK(is_open(raw));
  int kept = c.release();
  CHECK_FALSE(c);
  c.reset();  // nothing to close: the descriptor is the caller's now
  CHECK(is_open(kept));
  ::close(kept);

  util::Fd d(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  raw = d.get();
  d.reset();
  CHECK_FALSE(d);
  CHECK_FALSE(is_open(raw));
}
