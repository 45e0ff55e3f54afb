#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include "util/fact_cache.hpp"

namespace {
util::FileStamp stamp(uint64_t ino) { return {2049, ino, 1000 + int64_t(ino), 1700000000123456789}; }
}  // namespace

TEST_CASE("Fact cache: entries round-trip, with tabs, newlines and backslashes in values", "[cache]") {
  std::vector<util::CacheEntry> in = {{stamp(1), {{"kind", "static"}, {"path", "/a\tb\nc\\d"}}},
                                      {stamp(2), {{"version", ""}}}};
  auto out = util::parse_fact_cache(util::serialize_fact_cache(in));
  REQUIRE(out.size() == 2);
  CHECK(out[0].stamp == stamp(1));
  CHECK(out[0].facts.at("path") == "/a\tb\nc\\d");
  CHECK(out[1].facts.at("version").empty());
}

TEST_CASE("Fact cache: damaged lines are dropped, good ones kept", "[cache]") {
  std::string text = util::serialize_fact_cache({{stamp(1), {{"kind", "dynamic"}}}});
  text += "garbage line\n";
  text += "1\t2\tx\t4\tkind=static\n";      // size not a number
  text += "1\t2\t3\t4\tnoequals\n";         // field without '='
  text += "1\t2\t3\t4\tkind=bad\\q\n";      // unknown escape
  text += std::string("\0\xff\xfe", 3) + "\n";
  text += "7\t8\t9\t10\tkind=script";         // last line without newline: still whole
  auto out = util::parse_fact_cache(text);
  REQUIRE(out.size() == 2);
  CHECK(out[0].facts.at("kind") == "dynamic");
  CHECK(out[1].stamp == util::FileStamp{7, 8, 9, 10});
}

TEST_CASE("Fact cache: a later line for the same file wins", "[cache]") {
  std::string text = util::serialize_fact_cache({{stamp(1), {{"warned", "0"}}}, {stamp(1), {{"warned", "1"}}}});
  auto out = util::parse_fact_cache(text);
  REQUIRE(out.size() == 1);
  CHECK(out[0].facts.at("warned") == "1");
}

TEST_CASE("Fact cache: saving merges what another run saved meanwhile", "[cache]") {
  TempDir dir;
  std::string path = dir.path + "/sub/facts.tsv";
  util::FactCache a(path), b(path);
  CHECK_FALSE(a.get(stamp(1)));
  CHECK_FALSE(b.get(stamp(2)));
  a.put(stamp(1), {{"kind", "static"}});
  b.put(stamp(2), {{"kind", "dynamic"}});
  REQUIRE(a.save());
  REQUIRE(b.save());
  util::FactCache c(path);
  REQUIRE(c.get(stamp(1)));
  CHECK(c.get(stamp(1))->at("kind") == "static");
  REQUIRE(c.get(stamp(2)));
}

TEST_CASE("Fact cache: a corrupt file is replaced, and the size stays bounded", "[cache]") {
  TempDir dir;
  std::string path = dir.write("facts.tsv", std::string(5000, '\x01'));
  util::FactCache cache(path);
  CHECK_FALSE(cache.get(stamp(1)));
  for (uint64_t i = 0; i < util::FactCache::kMaxEntries + 10; ++i) cache.put(stamp(i), {{"k", "v"}});
  REQUIRE(cache.save());
  auto text = util::read_file(path);
  REQUIRE(text);
  auto entries = util::parse_fact_cache(*text);
  CHECK(entries.size() == util::FactCache::kMaxEntries);
  CHECK(entries.back().stamp == stamp(util::FactCache::kMaxEntries + 9));  // the newest are kept
}

TEST_CASE("A lookup finds the newest line of its file among many, and not a file whose numbers only start alike", "[cache]") {
  TempDir t;
  std::string path = t.path + "/facts.tsv";
  std::vector<util::CacheEntry> entries;
  for (uint64_t i = 1; i <= 300; ++i) entries.push_back({stamp(i), {{"n", std::to_string(i)}}});
  entries.push_back({stamp(7), {{"n", "seven, newer"}}});
  util::FileStamp shorter{2049, 900, 5, 123}, longer{2049, 900, 5, 1234};  // one is a prefix of the other
  entries.push_back({longer, {{"n", "longer"}}});
  REQUIRE(util::write_file_atomic(path, util::serialize_fact_cache(entries), 0600));
  util::FactCache cache(path);
  CHECK(cache.get(stamp(7))->at("n") == "seven, newer");
  CHECK(cache.get(stamp(300))->at("n") == "300");
  CHECK(cache.get(longer)->at("n") == "longer");
  CHECK_FALSE(cache.get(shorter));
  CHECK_FALSE(cache.get(stamp(301)));
  // Saving merges and keeps each file once.
  cache.put(stamp(301), {{"n", "301"}});
  REQUIRE(cache.save());
  auto all = util::parse_fact_cache(*util::read_file(path));
  CHECK(all.size() == 302);
  CHECK(util::FactCache(path).get(stamp(7))->at("n") == "seven, newer");
}
