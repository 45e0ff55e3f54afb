#include <catch2/catch.hpp>

#include "pipeline/plan.hpp"
#include "run/environment.hpp"

namespace {
run::EnvInputs inputs(std::vector<std::string> env) {
  run::EnvInputs in;
  in.current = std::move(env);
  return in;
}
}  // namespace

TEST_CASE("The caller's LD_PRELOAD comes first, as written, and the allocator and the probe follow", "[env]") {
  // Issue 13 item 6: a sanitizer runtime must stay first, a malloc interposer of the caller's
  // must see the calls it sees without edashim.
  auto in = inputs({"PATH=/bin", "LD_PRELOAD=/opt/libfoo.so /opt/libbar.so"});
  in.allocator_library = "/usr/lib/libmimalloc.so.2";
  in.probe_library = "/p/libedashim_probe.so";
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "LD_PRELOAD") == "/opt/libfoo.so /opt/libbar.so:/usr/lib/libmimalloc.so.2:/p/libedashim_probe.so");
  REQUIRE(plan.changes.size() == 1);
  CHECK(plan.changes[0].before == "/opt/libfoo.so /opt/libbar.so");
}

TEST_CASE("Nothing already in the caller's LD_PRELOAD is added twice, and with nothing to add it is untouched", "[env]") {
  auto in = inputs({"LD_PRELOAD=/p/libedashim_probe.so:/usr/lib/libmimalloc.so.2"});
  in.allocator_library = "/usr/lib/libmimalloc.so.2";
  in.probe_library = "/q/libedashim_probe.so";
  auto plan = run::build_environment(in);
  CHECK(plan.env == std::vector<std::string>{"LD_PRELOAD=/p/libedashim_probe.so:/usr/lib/libmimalloc.so.2"});
  CHECK(plan.changes.empty());
  auto none = run::build_environment(inputs({"LD_PRELOAD=/usr/lib/libtcmalloc_minimal.so.4"}));
  CHECK(none.env == std::vector<std::string>{"LD_PRELOAD=/usr/lib/libtcmalloc_minimal.so.4"});
}

TEST_CASE("An allocator or a malloc-serving sanitizer in the caller's LD_PRELOAD is their choice", "[env]") {
  CHECK(run::preloaded_allocator({"LD_PRELOAD=/opt/libfoo.so libtcmalloc_minimal.so.4"}) == "libtcmalloc_minimal.so.4");
  CHECK(run::preloaded_allocator({"LD_PRELOAD=libasan.so.8"}) == "libasan.so.8");
  CHECK(run::preloaded_allocator({"LD_PRELOAD=/usr/lib/clang/lib/libclang_rt.tsan-x86_64.so"}) ==
        "/usr/lib/clang/lib/libclang_rt.tsan-x86_64.so");
  CHECK(run::preloaded_allocator({"LD_PRELOAD=libubsan.so.1:/opt/libmalloc_counter.so"}).empty());  // UBSan: no malloc
  CHECK(run::preloaded_allocator({"PATH=/bin"}).empty());
}

TEST_CASE("Two LD_PRELOAD entries in a raw environment: the last, which ld.so reads, gets the additions", "[env]") {
  std::vector<std::string> env{"LD_PRELOAD=/first.so", "A=1", "LD_PRELOAD=/last.so", "B=2"};
  CHECK(run::effective_preload(env) == "/last.so");
  CHECK(run::lookup(env, "LD_PRELOAD") == "/first.so");  // what getenv sees
  auto in = inputs(env);
  in.probe_library = "/p/libedashim_probe.so";
  auto plan = run::build_environment(in);
  CHECK(plan.env == std::vector<std::string>{"LD_PRELOAD=/first.so", "A=1", "LD_PRELOAD=/last.so:/p/libedashim_probe.so", "B=2"});
  CHECK(run::preloaded_allocator({"LD_PRELOAD=/usr/lib/libjemalloc.so.2", "LD_PRELOAD=/x.so"}).empty());
}

TEST_CASE("MIMALLOC_* variables come first: mimalloc 2.0 reads only 256 entries", "[env]") {
  std::vector<std::string> env;
  for (int i = 0; i < 300; ++i) env.push_back("V" + std::to_string(i) + "=x");
  auto in = inputs(env);
  in.allocator_library = "/usr/lib/libmimalloc.so.2";
  in.options_family = "mimalloc";
  in.options = {{"eager_commit_delay", int64_t(0)}, {"large_os_pages", true}};
  auto plan = run::build_environment(in);
  CHECK(plan.env[0] == "MIMALLOC_EAGER_COMMIT_DELAY=0");
  CHECK(plan.env[1] == "MIMALLOC_LARGE_OS_PAGES=1");
  CHECK(plan.env.size() == 303);
}

TEST_CASE("Allocator options the caller set stay as they set them: MALLOC_CONF, MIMALLOC_*, GLIBC_TUNABLES", "[env]") {
  auto in = inputs({"MALLOC_CONF=narenas:1"});
  in.options_family = "jemalloc";
  in.options = {{"narenas", int64_t(4)}};
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "MALLOC_CONF") == "narenas:1");
  CHECK(plan.changes.empty());
  REQUIRE(plan.kept.size() == 1);
  CHECK(plan.kept[0].name == "MALLOC_CONF");
  CHECK(plan.kept[0].profile == "narenas:4");

  auto mi = inputs({"MIMALLOC_VERBOSE=1"});
  mi.options_family = "mimalloc";
  mi.options = {{"eager_commit_delay", int64_t(0)}, {"verbose", false}};
  auto mplan = run::build_environment(mi);
  CHECK(run::lookup(mplan.env, "MIMALLOC_VERBOSE") == "1");
  CHECK(run::lookup(mplan.env, "MIMALLOC_EAGER_COMMIT_DELAY") == "0");  // one the caller did not set

  auto gi = inputs({"GLIBC_TUNABLES=glibc.pthread.rseq=0"});
  gi.options_family = "glibc";
  gi.options = {{"mmap_threshold", int64_t(134217728)}};
  CHECK(run::lookup(run::build_environment(gi).env, "GLIBC_TUNABLES") == "glibc.pthread.rseq=0");
}

TEST_CASE("jemalloc options become MALLOC_CONF", "[env]") {
  auto in = inputs({"MALLOC_CONF="});  // empty: not set
  in.options_family = "jemalloc";
  in.options = {{"background_thread", true}, {"dirty_decay_ms", int64_t(5000)}};
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "MALLOC_CONF") == "background_thread:true,dirty_decay_ms:5000");
}

TEST_CASE("Options of an allocator not in use are not applied", "[env]") {
  config::Settings s;
  s.options["mimalloc"]["verbose"].set(true, {});
  s.options["jemalloc"]["narenas"].set(int64_t(2), {});
  auto in = inputs({});
  in.options_family = "jemalloc";
  pipeline::environment_settings(s, in);
  REQUIRE(in.options.size() == 1);
  CHECK(in.options[0].first == "narenas");
  auto plan = run::build_environment(in);
  CHECK_FALSE(run::lookup(plan.env, "MIMALLOC_VERBOSE").has_value());
  CHECK(run::lookup(plan.env, "MALLOC_CONF") == "narenas:2");
}

TEST_CASE("The settings' locale and [env] reach the environment's inputs in the settings' order", "[env]") {
  config::Settings s;
  s.locale.set("C", {});
  s.env["NEW"].set(std::string("new"), {});
  s.env["DROP"].set(std::nullopt, {});
  auto in = inputs({});
  in.options_family = "mimalloc";  // none set: none taken
  pipeline::environment_settings(s, in);
  CHECK(in.options.empty());
  CHECK(in.locale == "C");
  using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;
  CHECK(in.env == Env{{"DROP", std::nullopt}, {"NEW", "new"}});
}

TEST_CASE("Locale, scratch, [env] and markers are applied and reported as changes", "[env]") {
  auto in = inputs({"DROP=", "TMPDIR=/tmp", "OTHER=same"});
  in.locale = "C";
  in.env = {{"DROP", std::nullopt}, {"NEW", "new"}};
  in.scratch_dir = "/dev/shm/edashim-x";
  in.markers = {{"__EDASHIM_CHAIN", "/usr/bin/edashim"}};
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "LC_ALL") == "C");
  CHECK(run::lookup(plan.env, "TMPDIR") == "/dev/shm/edashim-x");  // scratch = true is for that
  CHECK(run::lookup(plan.env, "TEMP") == "/dev/shm/edashim-x");
  CHECK(run::lookup(plan.env, "NEW") == "new");
  CHECK_FALSE(run::lookup(plan.env, "DROP").has_value());
  CHECK(run::lookup(plan.env, "OTHER") == "same");
  CHECK(run::lookup(plan.env, "__EDASHIM_CHAIN") == "/usr/bin/edashim");
  // The user's variables keep their order; a changed one stays in place.
  CHECK(plan.env[0] == "TMPDIR=/dev/shm/edashim-x");
  bool dropped_reported = false;
  for (const auto& c : plan.changes)
    if (c.name == "DROP") dropped_reported = c.before == "" && !c.after;
  CHECK(dropped_reported);
}

TEST_CASE("Variables the caller set win over every file: locale and [env]", "[env]") {
  // Issue 13 item 6: `locale = "C"` beat the user's LC_ALL=fr_FR.UTF-8.
  auto in = inputs({"LC_ALL=fr_FR.UTF-8", "KEEP=old", "DROP=1"});
  in.locale = "C";
  in.env = {{"DROP", std::nullopt}, {"KEEP", "new"}};
  auto plan = run::build_environment(in);
  CHECK(plan.env == std::vector<std::string>{"LC_ALL=fr_FR.UTF-8", "KEEP=old", "DROP=1"});
  CHECK(plan.changes.empty());
  CHECK(plan.kept.size() == 3);
}

TEST_CASE("split_preload accepts colons and spaces", "[env]") {
  auto v = run::split_preload(" a.so:b.so  c.so:");
  REQUIRE(v.size() == 3);
  CHECK(v[2] == "c.so");
}

TEST_CASE("What edashim set is recorded with a fingerprint of each value, read back whatever the names", "[env]") {
  auto two = run::value_fingerprint("2");
  CHECK(two.size() == 16);
  CHECK(run::value_fingerprint("") .size() == 16);
  CHECK(run::value_fingerprint(std::string(100000, '\n')).size() == 16);  // any value: the same width
  CHECK(two == run::value_fingerprint("2"));
  CHECK(two != run::value_fingerprint("8"));
  CHECK(run::value_fingerprint("/dev/shm/a") != run::value_fingerprint("/dev/shm/b"));
  std::vector<run::SetEntry> entries{{"OMP_NUM_THREADS", two, false}, {"odd:name", two, true}, {"X", two, false}};
  auto text = run::encode_set_entries(entries);
  CHECK(text == "OMP_NUM_THREADS=" + two + ":odd:name==" + two + ":X=" + two);
  CHECK(run::decode_set_entries(text) == entries);
  // No variable's name holds '=' or is empty: such an entry is never written.
  CHECK(run::encode_set_entries({{"A=B", two, false}, {"", two, false}}).empty());
  // Written by hand or by an older edashim (names only), cut short, or followed by junk: read up
  // to the first entry that is not well formed, and not past it.
  CHECK(run::decode_set_entries("MALLOC_CONF:TMPDIR").empty());
  CHECK(run::decode_set_entries("A=" + two.substr(0, 15)).empty());
  CHECK(run::decode_set_entries("=" + two).empty());
  CHECK(run::decode_set_entries("A=" + two + "x").empty());
  CHECK(run::decode_set_entries("A=" + std::string(16, 'F')).empty());  // lower-case hex only
  CHECK(run::decode_set_entries("A=" + two + ":B=zz:C=" + two) == std::vector<run::SetEntry>{{"A", two, false}});
  CHECK(run::decode_set_entries("A=" + two + ":").size() == 1);
  CHECK(run::decode_set_entries("").empty());
}

// The environment a flow's top (make, under `edashim run`) gets from edashim: [env]
// OMP_NUM_THREADS = "2", scratch, the hook. Its recipes start tools from it.
namespace {
std::vector<std::string> flow_top_environment() {
  auto in = inputs({"PATH=/bin", "HOME=/h", "EMPTY="});
  in.env = {{"OMP_NUM_THREADS", "2"}, {"EMPTY", "profile's"}};
  in.scratch_dir = "/dev/shm/edashim-0/s";
  in.hook_library = "/p/libedashim_probe.so";
  in.probe_library = "/p/libedashim_probe.so";
  in.markers = {{"__EDASHIM_CHAIN", "/bin/edashim"}};
  return run::build_environment(in).env;
}
// `env` with NAME set to VALUE (replaced where it is, else appended), as a recipe's `NAME=VALUE tool`.
std::vector<std::string> with(std::vector<std::string> env, const std::string& name, const std::string& value) {
  for (auto& e : env)
    if (e.rfind(name + "=", 0) == 0) return e = name + "=" + value, env;
  env.push_back(name + "=" + value);
  return env;
}
}  // namespace

TEST_CASE("A run below takes out what edashim set only while it has edashim's value: the caller's is theirs", "[env]") {
  auto top = flow_top_environment();
  REQUIRE(run::lookup(top, "OMP_NUM_THREADS") == "2");
  REQUIRE(run::lookup(top, "TMP") == "/dev/shm/edashim-0/s");
  REQUIRE(run::lookup(top, run::kScratchVar) == "/dev/shm/edashim-0/s");
  // A recipe that changes nothing: the run below starts from what the flow was given.
  CHECK(run::without_inherited(top) == std::vector<std::string>{"PATH=/bin", "HOME=/h", "EMPTY=", "__EDASHIM_CHAIN=/bin/edashim"});
  // `OMP_NUM_THREADS=8 TMPDIR=/var/tmp EMPTY=mine yosys`: those three are the caller's, as through
  // the link; TMP and TEMP, still the flow's scratch, are not.
  auto recipe = with(with(with(top, "OMP_NUM_THREADS", "8"), "TMPDIR", "/var/tmp"), "EMPTY", "mine");
  auto below = run::without_inherited(recipe);
  CHECK(run::lookup(below, "OMP_NUM_THREADS") == "8");
  CHECK(run::lookup(below, "TMPDIR") == "/var/tmp");
  CHECK(run::lookup(below, "EMPTY") == "mine");
  CHECK_FALSE(run::lookup(below, "TMP"));
  CHECK_FALSE(run::lookup(below, "TEMP"));
  CHECK_FALSE(run::lookup(below, run::kScratchVar));  // the flow's scratch is not the run's below
  CHECK_FALSE(run::lookup(below, "LD_PRELOAD"));
  // Python's env={...} without a variable at all: it stays unset.
  std::vector<std::string> dropped;
  for (const auto& e : top)
    if (e.rfind("OMP_NUM_THREADS=", 0) != 0) dropped.push_back(e);
  CHECK_FALSE(run::lookup(run::without_inherited(dropped), "OMP_NUM_THREADS"));
}

TEST_CASE("A run below takes edashim's preloads out where they stand as appended, not a library the caller named", "[env]") {
  std::vector<std::string> env{"__EDASHIM_OURS=/l/libmimalloc.so.2:/p/libedashim_probe.so", "PATH=/bin"};
  auto ld = [&](const std::string& value) {
    auto e = env;
    e.push_back("LD_PRELOAD=" + value);
    return run::lookup(run::without_inherited(e), "LD_PRELOAD");
  };
  CHECK(ld("/l/libmimalloc.so.2:/p/libedashim_probe.so") == std::nullopt);
  CHECK(ld("/mine.so:/l/libmimalloc.so.2:/p/libedashim_probe.so") == "/mine.so");
  CHECK(ld("/mine.so /l/libmimalloc.so.2 /p/libedashim_probe.so:/last.so") == "/mine.so:/last.so");
  // `LD_PRELOAD=/l/libmimalloc.so.2 yosys-abc` in a yosys run: the caller's choice, as through the link.
  CHECK(ld("/l/libmimalloc.so.2") == "/l/libmimalloc.so.2");
  CHECK(ld("/p/libedashim_probe.so:/l/libmimalloc.so.2") == "/p/libedashim_probe.so:/l/libmimalloc.so.2");
}

TEST_CASE("A library whose path has a space or colon never reaches LD_PRELOAD: ld.so would split it", "[env]") {
  CHECK(run::preload_safe("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"));
  CHECK_FALSE(run::preload_safe("/home/Jane Doe/.local/lib/edashim/libedashim_probe.so"));
  CHECK_FALSE(run::preload_safe("/mnt/c:/lib/libedashim_probe.so"));
  auto in = inputs({"PATH=/bin", "LD_PRELOAD=/opt/libfoo.so"});
  in.allocator_library = "/opt/my libs/libjemalloc.so.2";
  in.probe_library = "/home/Jane Doe/lib/libedashim_probe.so";
  in.hook_library = in.probe_library;
  auto plan = run::build_environment(in);
  CHECK(run::lookup(plan.env, "LD_PRELOAD") == "/opt/libfoo.so");
  // The allocator's path alone is unsafe: the probe still goes in, the allocator does not.
  in.probe_library = in.hook_library = "/p/libedashim_probe.so";
  CHECK(run::lookup(run::build_environment(in).env, "LD_PRELOAD") == "/opt/libfoo.so:/p/libedashim_probe.so");
}
