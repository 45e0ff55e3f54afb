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
