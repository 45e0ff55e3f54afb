// The key table (config/keys.hpp) and the untrusted ranges of allocator options
// (alloc/options.hpp): issue 24 group 4.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "alloc/options.hpp"
#include "config/keys.hpp"
#include "config/load.hpp"
#include "config_fixture.hpp"
#include "temp_dir.hpp"

namespace {

toml::table parse(const std::string& text) { return toml::parse(text); }

// What an untrusted file may not set of `key = value` (the text after '=').
std::vector<config::Refusal> refused(const std::string& key, const std::string& value) {
  static std::vector<toml::table> keep;  // the nodes the refusals point into
  keep.push_back(parse(key + " = " + value));
  return config::untrusted_refusals(key, *keep.back().get(key));
}

bool applied_from_project(const config::Loaded& l, const std::string& key) {
  for (const auto& [file, what] : l.ignored)
    for (const auto& w : what)
      if (w.rfind(key + " (", 0) == 0) return false;
  return true;
}

}  // namespace

TEST_CASE("Keys: every setting has one entry in the table, and layer_keys derives from it", "[config][keys]") {
  const std::set<std::string> expected = {
      "allocator", "locale", "scratch", "keep_scratch", "scratch_min_free_mb", "scratch_min_free_percent", "probe", "supervise", "log",
      "path", "env", "log_max_mb", "log_keep", "library_dirs", "shared_dirs", "farm_edashim", "explore", "explore_profiles", "adopt",
      "adopt_requires_bench", "mimalloc", "jemalloc", "tcmalloc", "tbbmalloc", "glibc", "glibc_fallback"};
  std::set<std::string> names;
  for (const auto& k : config::key_table()) {
    CHECK(k.apply != nullptr);
    CHECK(names.insert(k.name).second);  // no key twice
  }
  CHECK(names == expected);
  for (const auto& family : alloc::option_families()) CHECK(config::find_key(family));
  for (const auto& name : expected)
    CHECK(std::count(config::layer_keys().begin(), config::layer_keys().end(), name) == 1);
  CHECK_FALSE(config::find_key("tool"));  // sections, handled by the loader
}

TEST_CASE("Keys: a file is untrusted unless the loader says otherwise", "[config][keys]") {
  CHECK_FALSE(config::FileContext{}.trusted);
}

TEST_CASE("Keys: an untrusted file may set allocator by name, locale, scratch on/off and option families only",
          "[config][keys]") {
  const std::set<std::string> allowed = {"allocator", "locale", "scratch", "mimalloc", "jemalloc",
                                         "tcmalloc", "tbbmalloc", "glibc", "glibc_fallback"};
  for (const auto& k : config::key_table()) {
    INFO(k.name);
    if (std::string(k.name) == "shared_dirs" || std::string(k.name) == "farm_edashim") {
      CHECK(k.own_config_only);  // never from a project file, trusted or not
      continue;
    }
    CHECK_FALSE(k.own_config_only);
    CHECK((k.untrusted_why == nullptr) == (allowed.count(k.name) == 1));
  }
  CHECK(refused("allocator", "\"jemalloc\"").empty());
  REQUIRE(refused("allocator", "\"/tmp/evil.so\"").size() == 1);
  CHECK(refused("allocator", "\"/tmp/evil.so\"")[0].why.find("library path") != std::string::npos);
  CHECK(refused("locale", "\"C.UTF-8\"").empty());
  CHECK(refused("scratch", "true").empty());
  CHECK(refused("scratch", "false").empty());
  CHECK(refused("scratch", "\"override\"").size() == 1);
  for (const char* key : {"keep_scratch", "probe", "supervise", "adopt", "adopt_requires_bench"}) CHECK(refused(key, "true").size() == 1);
  CHECK(refused("scratch_min_free_percent", "0").size() == 1);
  CHECK(refused("scratch_min_free_mb", "0").size() == 1);
  CHECK(refused("log", "\"/tmp/x\"").size() == 1);
  CHECK(refused("library_dirs", "[\"/x\"]").size() == 1);
  CHECK(refused("explore", "1.0").size() == 1);
  CHECK(refused("unknown_key", "1").empty());  // a mistake, reported as such, not a restriction
}

constexpr int64_t kInt32Max = 2147483647;

TEST_CASE("Keys: allocator options from an untrusted file are sifted one by one", "[config][keys]") {
  auto r = refused("glibc", "{ top_pad = 1099511627776, trim_threshold = 131072, check = 3 }");
  REQUIRE(r.size() == 2);
  std::set<std::string> what;
  for (const auto& x : r) what.insert(x.what);
  CHECK(what == std::set<std::string>{"[glibc] top_pad", "[glibc] check"});
  CHECK(refused("jemalloc", "{ background_thread = true, narenas = 4 }").empty());
  CHECK(refused("jemalloc", "{ prof = true }").size() == 1);
}

TEST_CASE("Options: safe ranges for untrusted files, and the user's own range unchanged", "[alloc][keys]") {
  using alloc::OptionValue;
  auto top_pad = alloc::untrusted_range("glibc", "top_pad");
  REQUIRE(top_pad);
  CHECK(top_pad->min == 0);
  CHECK(top_pad->max == 64 << 20);
  CHECK(alloc::untrusted_refusal("glibc", "top_pad", OptionValue(int64_t(1) << 40)));
  CHECK_FALSE(alloc::untrusted_refusal("glibc", "top_pad", OptionValue(int64_t(1) << 20)));
  CHECK_FALSE(alloc::check_value("glibc", "top_pad", OptionValue(int64_t(1) << 40)));  // the user may
  // No glibc size is left unbounded for an untrusted file.
  for (const char* name : {"arena_max", "arena_test", "hugetlb", "mmap_threshold", "mxfast", "tcache_count", "tcache_max",
                           "tcache_unsorted_limit", "top_pad", "trim_threshold"}) {
    INFO(name);
    auto r = alloc::untrusted_range("glibc", name);
    REQUIRE(r);
    CHECK(r->max <= (int64_t(1) << 31));
    CHECK_FALSE(r->why.empty());
    CHECK(alloc::untrusted_range("glibc_fallback", name)->max == r->max);
  }
  CHECK(alloc::untrusted_range("glibc", "mmap_threshold")->max == 1 << 30);  // the shipped 128 MiB fits
  CHECK_FALSE(alloc::untrusted_range("glibc", "check"));                      // restricted: none
  CHECK_FALSE(alloc::untrusted_range("glibc", "no_such"));
  // Sizes written as words are held to the same range.
  CHECK(alloc::untrusted_refusal("mimalloc", "reserve_os_memory", OptionValue(std::string("2G"))));
  CHECK_FALSE(alloc::untrusted_refusal("mimalloc", "reserve_os_memory", OptionValue(std::string("64M"))));
  CHECK(alloc::untrusted_refusal("mimalloc", "arena_reserve", OptionValue(std::string("999999999999999G"))));
  CHECK(alloc::untrusted_refusal("mimalloc", "max_vabits", OptionValue(int64_t(20))));
  CHECK(alloc::untrusted_refusal("tcmalloc", "large_alloc_report_threshold", OptionValue(int64_t(0))));
  CHECK(alloc::untrusted_refusal("tcmalloc", "max_total_thread_cache_bytes", OptionValue(int64_t(1) << 40)));
  CHECK(alloc::untrusted_refusal("jemalloc", "narenas", OptionValue(int64_t(100000))));
  CHECK(alloc::untrusted_refusal("jemalloc", "narenas_ratio", OptionValue(100.0)));
  CHECK(alloc::untrusted_refusal("jemalloc", "max_background_threads", OptionValue(int64_t(4096))));
  CHECK_FALSE(alloc::untrusted_refusal("jemalloc", "thp", OptionValue(std::string("always"))));  // words: all safe
  CHECK_FALSE(alloc::untrusted_refusal("jemalloc", "dirty_decay_ms", OptionValue(int64_t(5000))));
  CHECK(alloc::untrusted_refusal("jemalloc", "prof_prefix", OptionValue(std::string("/tmp/p"))));  // restricted
  CHECK(alloc::known_option("mimalloc", "decommit_delay"));  // 2.0's name: some version has it
  CHECK_FALSE(alloc::known_option("mimalloc", "no_such_option"));
}

TEST_CASE("Load: an untrusted file's huge top_pad is ignored with its line, and applies once trusted", "[config][keys]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  std::string body = "allocator = \"system\"\n[glibc]\ntop_pad = 1099511627776\nmxfast = 64\n";
  auto file = t.write("proj/.edashim.toml", body);
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK_FALSE(loaded.settings.options["glibc"].count("top_pad"));
  CHECK(loaded.settings.options["glibc"].count("mxfast"));
  REQUIRE(loaded.ignored.count(file));
  REQUIRE(loaded.ignored.at(file).size() == 1);
  CHECK(loaded.ignored.at(file)[0].rfind("[glibc] top_pad (", 0) == 0);
  CHECK(loaded.ignored.at(file)[0].find("; line 3)") != std::string::npos);
  REQUIRE(store.trust(file, body).ok());
  loaded = config::load(r);
  CHECK(loaded.settings.options["glibc"].count("top_pad"));
}

TEST_CASE("Load: a bad value in an untrusted file is a warning that ignores only that value", "[config][keys]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  t.write("user/config.toml", "[env]\nMINE = \"kept\"\n");
  std::string body = "locale = \"C\"\nscratch = \"yes\"\n[jemalloc]\nno_such = 1\n";
  auto file = t.write("proj/.edashim.toml", body);
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.env.at("MINE").value == std::optional<std::string>("kept"));
  CHECK(loaded.settings.locale.value == "C");
  CHECK(mentions(loaded, file + ":2:11: warning: 'scratch' must be true, false or \"override\""));
  CHECK(mentions(loaded, file + ":4:11: warning: [jemalloc] has no option 'no_such'"));
  // Trusted, the same file's mistakes are errors again (the user vouched for it).
  REQUIRE(store.trust(file, body).ok());
  loaded = config::load(r);
  CHECK(loaded.has_errors());
  CHECK(mentions(loaded, file + ":2:11: error: 'scratch' must be"));
  // A syntax error in an untrusted file: the file is ignored, the rest applies.
  t.write("proj/.edashim.toml", "allocator = \n");
  loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.env.count("MINE"));
  CHECK(mentions(loaded, file + ":1:"));
  // The user's own mistakes stay errors.
  t.write("user/config.toml", "scratch = \"yes\"\n");
  CHECK(config::load(r).has_errors());
}

TEST_CASE("Load: an untrusted file cannot redefine shipped or the user's named profiles", "[config][keys]") {
  TempDir t;
  t.write("shipped/named/jemalloc.toml", "allocator = \"jemalloc\"\n");
  t.write("user/profiles/mine.toml", "allocator = \"tbbmalloc\"\n");
  t.write("user/config.toml", "[profile.ours]\nallocator = \"mimalloc\"\n");
  auto file = t.write("proj/.edashim.toml",
                      "[profile.jemalloc]\nallocator = \"system\"\n[profile.mine]\nallocator = \"system\"\n"
                      "[profile.ours]\nallocator = \"system\"\n[profile.repo]\nallocator = \"tcmalloc\"\n");
  auto r = request_in(t);
  for (auto [profile, allocator] : std::vector<std::pair<std::string, std::string>>{
           {"jemalloc", "jemalloc"}, {"mine", "tbbmalloc"}, {"ours", "mimalloc"}, {"repo", "tcmalloc"}}) {
    INFO(profile);
    r.chosen.profile = profile;
    auto loaded = config::load(r);
    CHECK_FALSE(loaded.has_errors());
    CHECK(loaded.settings.allocator.value == allocator);
    REQUIRE(loaded.ignored.count(file));
    CHECK(loaded.ignored.at(file).size() == 3);
  }
}

TEST_CASE("Load: keep_scratch, scratch_min_free_* and probe are ignored from an untrusted file", "[config][keys]") {
  TempDir t;
  t.write("proj/.edashim.toml", "scratch = true\nkeep_scratch = true\nscratch_min_free_percent = 0\nscratch_min_free_mb = 0\nprobe = false\n");
  auto loaded = config::load(request_in(t));
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.scratch.value);
  CHECK_FALSE(loaded.settings.keep_scratch.value);
  CHECK(loaded.settings.scratch_min_free_percent.value == 10);
  CHECK(loaded.settings.probe.value);
  for (const char* key : {"keep_scratch", "scratch_min_free_percent", "scratch_min_free_mb", "probe"}) {
    INFO(key);
    CHECK_FALSE(applied_from_project(loaded, key));
  }
}

TEST_CASE("Load: shared_dirs is read from the user's and the system's config only, and validated", "[config][keys]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  t.write("etc/config.toml", "shared_dirs = [\"/srv/site\"]\n");
  t.write("user/config.toml", "shared_dirs = [\"/srv/team\", \"/shared/farm\"]\n");
  auto loaded = config::load(r);
  REQUIRE_FALSE(loaded.has_errors());
  CHECK(loaded.settings.shared_dirs.value == std::vector<std::string>{"/srv/team", "/shared/farm"});
  CHECK(loaded.settings.shared_dirs.origin.str() == t.path + "/user/config.toml:1");
  std::string body = "shared_dirs = [\"/tmp\"]\n";
  auto file = t.write("proj/.edashim.toml", body);
  for (bool trusted : {false, true}) {
    INFO(trusted);
    if (trusted) REQUIRE(store.trust(file, body).ok());
    loaded = config::load(r);
    CHECK_FALSE(loaded.has_errors());
    CHECK(loaded.settings.shared_dirs.value == std::vector<std::string>{"/srv/team", "/shared/farm"});
    CHECK(mentions(loaded, file + ":1:15: warning: 'shared_dirs' ignored"));
  }
  ::unlink(file.c_str());
  for (const char* bad : {"[\"relative\"]", "[\"/a\\u001bb\"]", "[\"/a\\nb\"]", "\"/srv\"", "[1]"}) {
    INFO(bad);
    t.write("user/config.toml", std::string("shared_dirs = ") + bad + "\n");
    loaded = config::load(r);
    CHECK(mentions(loaded, "error: 'shared_dirs' must be a list of absolute directories without control characters"));
  }
  t.write("user/config.toml", "[tool.yosys]\nshared_dirs = [\"/srv\"]\n");
  CHECK(mentions(config::load(r), "'shared_dirs' belongs at the top level"));
}

TEST_CASE("Load: the trust store is read for what a profile's tool section sets too", "[config][keys]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  r.chosen.profile = "fast";
  std::string body = "[profile.fast.tool.yosys.env]\nSECRET = \"1\"\n";
  auto file = t.write("proj/.edashim.toml", body);
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.settings.env.count("SECRET"));
  CHECK(ignored_keys(loaded, file) == std::vector<std::string>{"env"});
  REQUIRE(store.trust(file, body).ok());
  loaded = config::load(r);
  CHECK(loaded.settings.env.count("SECRET"));
}

// A cloned project file must not make a tool keep what it freed: on a shared farm node that is
// memory taken from everyone (jemalloc's decay -1 kept 1 GiB freed for good; tcmalloc's release
// off or at rate 0 the same). Every option that can keep freed memory, each at the value that
// keeps it: refused from an untrusted file, and still the user's own to set.
TEST_CASE("Options: no option from an untrusted file keeps freed memory for good", "[alloc][keys]") {
  using alloc::OptionValue;
  struct Case {
    const char* family;
    const char* name;
    OptionValue keeps, returns;
  };
  const Case cases[] = {
      {"jemalloc", "dirty_decay_ms", OptionValue(int64_t(-1)), OptionValue(int64_t(10000))},
      {"jemalloc", "dirty_decay_ms", OptionValue(int64_t(3600000)), OptionValue(int64_t(0))},
      {"jemalloc", "muzzy_decay_ms", OptionValue(int64_t(-1)), OptionValue(int64_t(0))},
      {"jemalloc", "muzzy_decay_ms", OptionValue(int64_t(3600000)), OptionValue(int64_t(10000))},
      {"jemalloc", "hpa_min_purge_interval_ms", OptionValue(int64_t(1) << 40), OptionValue(int64_t(5000))},
      {"jemalloc", "hpa_dirty_mult", OptionValue(100.0), OptionValue(0.25)},
      {"jemalloc", "hpa_sec_max_bytes", OptionValue(int64_t(1) << 40), OptionValue(int64_t(256) << 10)},
      {"jemalloc", "hpa_sec_bytes_after_flush", OptionValue(int64_t(1) << 40), OptionValue(int64_t(256) << 10)},
      {"jemalloc", "tcache_gc_incr_bytes", OptionValue(int64_t(1) << 40), OptionValue(int64_t(65536))},
      {"jemalloc", "tcache_gc_delay_bytes", OptionValue(int64_t(1) << 40), OptionValue(int64_t(0))},
      {"tcmalloc", "release_rate", OptionValue(int64_t(0)), OptionValue(int64_t(1))},
      {"tcmalloc", "disable_memory_release", OptionValue(true), OptionValue(false)},
      {"mimalloc", "purge_delay", OptionValue(int64_t(-1)), OptionValue(int64_t(10))},
      {"mimalloc", "purge_delay", OptionValue(int64_t(kInt32Max)), OptionValue(int64_t(1000))},
      {"mimalloc", "purge_extend_delay", OptionValue(int64_t(-1)), OptionValue(int64_t(1))},
      {"mimalloc", "arena_purge_mult", OptionValue(int64_t(kInt32Max)), OptionValue(int64_t(10))},
      {"mimalloc", "decommit_delay", OptionValue(int64_t(kInt32Max)), OptionValue(int64_t(25))},
      {"mimalloc", "reset_delay", OptionValue(int64_t(kInt32Max)), OptionValue(int64_t(25))},
      {"mimalloc", "segment_decommit_delay", OptionValue(int64_t(kInt32Max)), OptionValue(int64_t(500))},
      {"mimalloc", "decommit_extend_delay", OptionValue(int64_t(kInt32Max)), OptionValue(int64_t(1))},
      {"mimalloc", "allow_decommit", OptionValue(false), OptionValue(true)},
      {"mimalloc", "page_full_retain", OptionValue(int64_t(kInt32Max)), OptionValue(int64_t(2))},
  };
  for (const auto& c : cases) {
    INFO(c.family << " " << c.name << " = " << alloc::render_option(c.keeps, true));
    auto why = alloc::untrusted_refusal(c.family, c.name, c.keeps);
    CHECK(why);  // each case reported, not only the first
    if (!why) continue;
    CHECK_FALSE(why->empty());
    CHECK_FALSE(alloc::check_value(c.family, c.name, c.keeps));  // the user's own file may
    // A value that gives memory back stays allowed, unless the option is refused by name.
    if (alloc::untrusted_range(c.family, c.name)) CHECK_FALSE(alloc::untrusted_refusal(c.family, c.name, c.returns));
  }
}
