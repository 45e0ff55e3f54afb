#include <catch2/catch.hpp>
#include <cstdio>
#include <ctime>

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

TEST_CASE("tsv_escape round-trips tabs, newlines and backslashes, and rejects bad escapes", "[strings]") {
  std::string nasty = "a\tb\nc\\d\\t";
  CHECK(util::tsv_escape(nasty) == "a\\tb\\nc\\\\d\\\\t");
  CHECK(util::tsv_unescape(util::tsv_escape(nasty)) == nasty);
  CHECK_FALSE(util::tsv_unescape("trailing\\").has_value());
  CHECK_FALSE(util::tsv_unescape("\\x").has_value());
}

TEST_CASE("iso_time_utc agrees with gmtime_r across leap years, centuries and the epoch", "[strings]") {
  CHECK(util::iso_time_utc(0) == "1970-01-01T00:00:00.000Z");
  CHECK(util::iso_time_utc(951782400.5) == "2000-02-29T00:00:00.500Z");
  CHECK(util::iso_time_utc(1796044566.216417) == "2026-11-30T13:16:06.216Z");
  for (long long t = -86400LL * 400; t < 86400LL * 365 * 500; t += 86400LL * 7 + 3671) {
    struct tm tm;
    time_t tt = time_t(t);
    gmtime_r(&tt, &tm);
    char want[40];
    std::snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.250Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec);
    REQUIRE(util::iso_time_utc(double(t) + 0.25) == want);
  }
}

TEST_CASE("printable escapes controls and invalid UTF-8, keeps the rest", "[strings]") {
  CHECK(util::printable("jemalloc[narenas=4]") == "jemalloc[narenas=4]");
  CHECK(util::printable("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  CHECK(util::printable("a\x1b[2Jb") == "a\\x1B[2Jb");
  CHECK(util::printable("x\ny\rz\t") == "x\\x0Ay\\x0Dz\\x09");
  CHECK(util::printable(std::string_view("n\0l", 3)) == "n\\x00l");
  CHECK(util::printable("del\x7f") == "del\\x7F");
  CHECK(util::printable("csi\xC2\x9B" "31m") == "csi\\xC2\\x9B31m");  // U+009B, the 8-bit CSI
  CHECK(util::printable("\xFF\xFE") == "\\xFF\\xFE");
  CHECK(util::printable("\xC0\xAF") == "\\xC0\\xAF");          // overlong '/'
  CHECK(util::printable("\xED\xA0\x80") == "\\xED\\xA0\\x80");  // a surrogate
  CHECK(util::printable("\xE2\x82") == "\\xE2\\x82");          // cut short
  CHECK(util::printable("") == "");
}
