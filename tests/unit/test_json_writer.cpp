#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "util/json_writer.hpp"

// The run log is written with util::JsonWriter and read back by reports, Python and jq: every
// line must be JSON a strict parser accepts, whatever bytes a tool's argv held.

TEST_CASE("JsonWriter nests objects and arrays with commas in the right places", "[json]") {
  util::JsonWriter j;
  j.begin_object();
  j.field("v", 1).field("name", "yosys").key("none").null();
  j.key("argv").value(std::vector<std::string>{"yosys", "-p", "synth"});
  j.key("empty").begin_array().end_array();
  j.key("inner").begin_object().field("ok", true).field("no", false).end_object();
  j.field("maybe", std::optional<long>{}).field("some", std::optional<long>{42});
  j.end_object();
  CHECK(j.str() == R"({"v":1,"name":"yosys","none":null,"argv":["yosys","-p","synth"],"empty":[],)"
                   R"("inner":{"ok":true,"no":false},"maybe":null,"some":42})");
  auto parsed = nlohmann::json::parse(j.str());
  CHECK(parsed["argv"][2] == "synth");
}

TEST_CASE("JsonWriter escapes control characters and replaces bytes that are not UTF-8", "[json]") {
  std::string nasty = "a\"b\\c\n\t\r\b\f";
  nasty += '\x01';
  nasty += '\x1f';
  nasty += "\xc3\xa9";          // é, valid
  nasty += "\xff";              // never valid
  nasty += "\xc0\xaf";          // overlong '/'
  nasty += "\xed\xa0\x80";      // a UTF-16 surrogate
  nasty += "\xf4\x90\x80\x80";  // above U+10FFFF
  nasty += "\xe2\x82";          // truncated
  nasty += "\xf0\x9f\x98\x80";  // an emoji, valid
  std::string out;
  util::append_json_string(out, nasty);
  CHECK(out.find("\\u0001") != std::string::npos);
  CHECK(out.find("\\u001f") != std::string::npos);
  auto back = nlohmann::json::parse(out).get<std::string>();
  std::string fffd = "\xef\xbf\xbd";
  CHECK(back.substr(0, 12) == std::string("a\"b\\c\n\t\r\b\f\x01\x1f"));
  CHECK(back.find("\xc3\xa9") != std::string::npos);
  CHECK(back.find("\xf0\x9f\x98\x80") != std::string::npos);
  CHECK(back.find('\xff') == std::string::npos);
  // 0xff, 0xc0, 0xaf, 0xed 0xa0 0x80, 0xf4 0x90 0x80 0x80, 0xe2 0x82: one U+FFFD per byte
  size_t n = 0;
  for (size_t p = back.find(fffd); p != std::string::npos; p = back.find(fffd, p + 1)) ++n;
  CHECK(n == 1 + 2 + 3 + 4 + 2);
}

TEST_CASE("JsonWriter writes doubles that read back exactly and stay doubles", "[json]") {
  for (double d : {0.0, 1.0, 0.1, 1764500000.123456, 3.5e-7, 123456789012345678.0}) {
    util::JsonWriter j;
    j.value(d);
    auto parsed = nlohmann::json::parse(j.str());
    CHECK(parsed.is_number_float());
    CHECK(parsed.get<double>() == d);
  }
  util::JsonWriter j;
  j.begin_array().value(std::nan("")).value(INFINITY).value(-2LL).end_array();
  CHECK(j.str() == "[null,null,-2]");
}
