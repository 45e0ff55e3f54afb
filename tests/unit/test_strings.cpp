#include <catch2/catch.hpp>

#include "util/strings.hpp"

TEST_CASE("parse_switch accepts only spellings nobody can misread", "[strings]") {
  for (auto s : {"1", "on", "ON", "yes", "true", "True"}) CHECK(util::parse_switch(s) == true);
  for (auto s : {"0", "off", "Off", "no", "false"}) CHECK(util::parse_switch(s) == false);
  for (auto s : {"", "disable", "2", "n", "y", "offf", " off"}) CHECK_FALSE(util::parse_switch(s).has_value());
}

TEST_CASE("nearest suggests a plausible typo fix and nothing for unrelated words", "[strings]") {
  std::vector<std::string> keys = {"allocator", "locale", "scratch", "probe"};
  CHECK(util::nearest("alocator", keys) == "allocator");
  CHECK(util::nearest("scrach", keys) == "scratch");
  CHECK_FALSE(util::nearest("frobnicate", keys).has_value());
}

TEST_CASE("split keeps empty fields, join inverts it", "[strings]") {
  auto parts = util::split("a::b", ':');
  REQUIRE(parts.size() == 3);
  CHECK(parts[1].empty());
  CHECK(util::join(parts, ":") == "a::b");
}

TEST_CASE("shell_quote leaves plain words and quotes the rest", "[strings]") {
  CHECK(util::shell_quote("/home/a/.edashim.toml") == "/home/a/.edashim.toml");
  CHECK(util::shell_quote("it's here") == "'it'\\''s here'");
}

TEST_CASE("tsv_escape round-trips tabs, newlines and backslashes; bad escapes are rejected", "[strings]") {
  std::string nasty = "a\tb\nc\\d\\t";
  CHECK(util::tsv_escape(nasty) == "a\\tb\\nc\\\\d\\\\t");
  CHECK(util::tsv_unescape(util::tsv_escape(nasty)) == nasty);
  CHECK_FALSE(util::tsv_unescape("trailing\\").has_value());
  CHECK_FALSE(util::tsv_unescape("\\x").has_value());
}
