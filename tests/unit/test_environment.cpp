#include <catch2/catch.hpp>

#include "run/environment.hpp"

namespace {
run::EnvInputs inputs(const config::Settings& s, std::vector<std::string> env) {
  run::EnvInputs in;
  in.settings = &s;
  in.current = std::move(env);
  return in;
}
}  // namespace

TEST_CASE("The allocator goes first in LD_PRELOAD, then the probe, then the user's libraries", "[env]") {
  config::Settings s;
  auto in = inputs(s, {"PATH=/bin", "LD_PRELOAD=/opt/libfoo.so /usr/lib/libjemalloc.so.2:/opt/libbar.so"});
  in.allocator_library = "/usr/lib/libmimalloc.so.2";
  in.probe_library = "/p/libedashim_probe.so";
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "LD_PRELOAD") ==
        "/usr/lib/libmimalloc.so.2:/p/libedashim_probe.so:/opt/libfoo.so:/opt/libbar.so");
  REQUIRE(plan.removed_preloads.size() == 1);
  CHECK(plan.removed_preloads[0] == "/usr/lib/libjemalloc.so.2");
}

TEST_CASE("With the system allocator, allocators in the user's LD_PRELOAD are still removed", "[env]") {
  config::Settings s;
  auto plan = run::build_environment(inputs(s, {"LD_PRELOAD=/usr/lib/libtcmalloc_minimal.so.4"}));
  CHECK_FALSE(run::lookup(plan.env, "LD_PRELOAD").has_value());
  REQUIRE(plan.changes.size() == 1);
  CHECK_FALSE(plan.changes[0].after.has_value());
}

TEST_CASE("MIMALLOC_* variables come first: mimalloc 2.0 reads only 256 entries", "[env]") {
  config::Settings s;
  s.options["mimalloc"]["eager_commit_delay"].set(int64_t(0), {});
  s.options["mimalloc"]["large_os_pages"].set(true, {});
  std::vector<std::string> env;
  for (int i = 0; i < 300; ++i) env.push_back("V" + std::to_string(i) + "=x");
  auto in = inputs(s, env);
  in.allocator_library = "/usr/lib/libmimalloc.so.2";
  in.options_family = "mimalloc";
  auto plan = run::build_environment(in);
  CHECK(plan.env[0] == "MIMALLOC_EAGER_COMMIT_DELAY=0");
  CHECK(plan.env[1] == "MIMALLOC_LARGE_OS_PAGES=1");
  CHECK(plan.env.size() == 303);
}

TEST_CASE("jemalloc options become MALLOC_CONF after the user's own", "[env]") {
  config::Settings s;
  s.options["jemalloc"]["dirty_decay_ms"].set(int64_t(5000), {});
  s.options["jemalloc"]["background_thread"].set(true, {});
  auto in = inputs(s, {"MALLOC_CONF=narenas:2"});
  in.options_family = "jemalloc";
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "MALLOC_CONF") == "narenas:2,background_thread:true,dirty_decay_ms:5000");
}

TEST_CASE("glibc tunables merge with the user's GLIBC_TUNABLES", "[env]") {
  config::Settings s;
  s.options["glibc"]["mmap_threshold"].set(int64_t(134217728), {});
  auto in = inputs(s, {"GLIBC_TUNABLES=glibc.pthread.rseq=0:glibc.malloc.mmap_threshold=1"});
  in.options_family = "glibc";
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "GLIBC_TUNABLES") == "glibc.pthread.rseq=0:glibc.malloc.mmap_threshold=134217728");
}

TEST_CASE("Options of an allocator not in use are not applied", "[env]") {
  config::Settings s;
  s.options["mimalloc"]["verbose"].set(true, {});
  auto in = inputs(s, {});
  in.options_family = "jemalloc";
  auto plan = run::build_environment(in);
  CHECK_FALSE(run::lookup(plan.env, "MIMALLOC_VERBOSE").has_value());
}

TEST_CASE("Locale, scratch, [env] and markers are applied and reported as changes", "[env]") {
  config::Settings s;
  s.locale.set("C", {});
  s.env["KEEP"].set(std::string("new"), {});
  s.env["DROP"].set(std::nullopt, {});
  auto in = inputs(s, {"KEEP=old", "DROP=1", "TMPDIR=/tmp", "OTHER=same"});
  in.scratch_dir = "/dev/shm/edashim-x";
  in.markers = {{"__EDASHIM_CHAIN", "/usr/bin/edashim"}};
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "LC_ALL") == "C");
  CHECK(run::lookup(plan.env, "TMPDIR") == "/dev/shm/edashim-x");
  CHECK(run::lookup(plan.env, "TEMP") == "/dev/shm/edashim-x");
  CHECK(run::lookup(plan.env, "KEEP") == "new");
  CHECK_FALSE(run::lookup(plan.env, "DROP").has_value());
  CHECK(run::lookup(plan.env, "OTHER") == "same");
  CHECK(run::lookup(plan.env, "__EDASHIM_CHAIN") == "/usr/bin/edashim");
  // The user's variables keep their order; a changed one stays in place.
  CHECK(plan.env[0] == "KEEP=new");
  bool dropped_reported = false;
  for (const auto& c : plan.changes)
    if (c.name == "DROP") dropped_reported = c.before == "1" && !c.after;
  CHECK(dropped_reported);
}

TEST_CASE("split_preload accepts colons and spaces", "[env]") {
  auto v = run::split_preload(" a.so:b.so  c.so:");
  REQUIRE(v.size() == 3);
  CHECK(v[2] == "c.so");
}
