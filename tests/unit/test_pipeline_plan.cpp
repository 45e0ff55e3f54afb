// make_plan, step by step, against the real shipped profiles, the real allocator libraries and
// real executables (the proof artefacts): what a run and `edashim explain` decide before launch.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>

#include "alloc/version.hpp"
#include "config/log_path.hpp"
#include "config_fixture.hpp"
#include "pipeline/explore.hpp"
#include "pipeline/plan.hpp"
#include "pipeline/preflight.hpp"
#include "pipeline/run_line.hpp"
#include "proof_artefacts.hpp"
#include "runlog/append.hpp"
#include "util/fs.hpp"
#include "util/machine.hpp"
#include "temp_dir.hpp"

namespace {

// A machine of its own: files under a temporary directory, cwd inside it (so that no
// .edashim.toml of the checkout applies), tools in its bin/.
struct PlanFixture {
  TempDir t;
  paths::Files files;
  std::string old_cwd;
  PlanFixture() {
    files.shipped_dir = EDASHIM_PROFILES_DIR;
    files.system_file = t.path + "/etc/config.toml";
    files.user_file = t.path + "/user/config.toml";
    files.user_profiles_dir = t.path + "/user/profiles";
    files.trust_file = t.path + "/state/trusted";
    files.probe_library = t.path + "/lib/libedashim_probe.so";  // absent unless a test makes it
    ::setenv("XDG_CACHE_HOME", (t.path + "/cache").c_str(), 1);
    util::make_dirs(t.path + "/work");
    util::make_dirs(t.path + "/bin");
    char buf[4096];
    old_cwd = ::getcwd(buf, sizeof buf) ? buf : "/";
    REQUIRE(::chdir((t.path + "/work").c_str()) == 0);
  }
  ~PlanFixture() { (void)!::chdir(old_cwd.c_str()); }
  // Puts a copy of a proof artefact on PATH under `name`.
  void tool(const std::string& name, const std::string& artefact = "proof_dynamic") {
    t.write("bin/" + name, proof_bytes(artefact));
    ::chmod((t.path + "/bin/" + name).c_str(), 0755);
  }
  std::vector<std::string> env(const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> e{"PATH=" + t.path + "/bin", "HOME=" + t.path};
    e.insert(e.end(), extra.begin(), extra.end());
    return e;
  }
  pipeline::Plan plan(const std::string& name, const std::vector<std::string>& extra_env = {},
                      const std::string& allocator = "") {
    pipeline::Invocation inv;
    inv.tool = name;
    inv.argv = {name};
    inv.chosen.allocator = allocator;
    inv.chosen.allocator_origin = allocator.empty() ? "" : "--allocator";
    return pipeline::make_plan(inv, files, env(extra_env));
  }
};

bool has_problem(const pipeline::Plan& p, const std::string& text) {
  for (const auto& q : p.loaded.problems)
    if (q.str().find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("Plan: the shipped yosys profile preloads jemalloc, with its version read from the library", "[plan]") {
  PlanFixture f;
  f.tool("yosys");
  auto p = f.plan("yosys");
  CHECK_FALSE(p.loaded.has_errors());
  CHECK(p.tool_path == f.t.path + "/bin/yosys");
  CHECK(p.allocator == "jemalloc");
  CHECK(p.allocator_library == std::string(kLibDir) + "/libjemalloc.so.2");
  CHECK(p.options_family == "jemalloc");
  // The version comes from the library's bytes (the file name says nothing of 5.3.0), once.
  CHECK(p.allocator_version == alloc::detect_version(p.allocator_library, pipeline::fact_cache()));
  CHECK(p.allocator_version.rfind("5.", 0) == 0);
  CHECK(p.preflight.inspected);
  CHECK(p.preflight.preload_reaches());
  CHECK(p.fallback_library.empty());
}

TEST_CASE("Plan: a tool not on PATH leaves the path empty and says where it looked", "[plan]") {
  PlanFixture f;
  auto p = f.plan("no-such-tool");
  CHECK(p.tool_path.empty());
  REQUIRE(p.resolution.searched.size() == 1);
  CHECK(p.resolution.searched[0] == f.t.path + "/bin");
  CHECK_FALSE(p.preflight.inspected);  // nothing to inspect
}

TEST_CASE("Plan: an explicit path is taken as given, with no PATH search", "[plan]") {
  PlanFixture f;
  pipeline::Invocation inv;
  inv.tool = "proof_dynamic";
  inv.explicit_path = proof_artefact("proof_dynamic");
  inv.argv = {inv.explicit_path};
  auto p = pipeline::make_plan(inv, f.files, f.env());
  CHECK(p.tool_path == inv.explicit_path);
  CHECK(p.resolution.searched.empty());
}

TEST_CASE("Plan: a profile path that is not an executable is an error naming the file and line", "[plan]") {
  PlanFixture f;
  std::string data = f.t.write("data.txt", "not a program\n");  // mode 0644
  f.t.write("user/config.toml", "[tool.mytool]\npath = \"" + data + "\"\n");
  auto p = f.plan("mytool");
  CHECK(p.loaded.has_errors());
  CHECK(has_problem(p, f.files.user_file + ":2"));
  CHECK(has_problem(p, "is not an executable file"));
  CHECK(p.tool_path.empty());
}

TEST_CASE("Plan: a static tool gets glibc tunables instead of the preload, and says why", "[plan]") {
  PlanFixture f;
  f.tool("yosys", "proof_static");
  auto p = f.plan("yosys");
  CHECK(p.preflight.blocker == tool::Blocker::static_exe);
  CHECK(p.allocator_library.empty());
  CHECK(p.fallback_library == std::string(kLibDir) + "/libjemalloc.so.2");
  CHECK(p.options_family == "glibc_fallback");  // the shipped all.toml has [glibc_fallback]
  auto env = pipeline::plan_environment(p, f.env(), "");
  CHECK(run::lookup(env.env, "GLIBC_TUNABLES").has_value());
  CHECK_FALSE(run::lookup(env.env, "LD_PRELOAD").has_value());
}

TEST_CASE("Plan: an option the installed version does not know is an error with the hint", "[plan]") {
  PlanFixture f;
  f.tool("yosys");
  f.t.write("user/config.toml", "[tool.yosys]\nallocator = \"mimalloc\"\n[mimalloc]\npurge_delay = 10\n");
  auto p = f.plan("yosys");
  REQUIRE(p.allocator_version.rfind("2.0", 0) == 0);  // Debian 12's mimalloc 2.0.9
  CHECK(p.loaded.has_errors());
  CHECK(has_problem(p, "decommit_delay"));
}

TEST_CASE("Plan: the allocator flag wins over the profile, and system preloads nothing", "[plan]") {
  PlanFixture f;
  f.tool("yosys");
  auto p = f.plan("yosys", {}, "system");
  CHECK(p.allocator == "system");
  CHECK(p.allocator_library.empty());
  CHECK(p.allocator_version.empty());
  CHECK(p.options_family == "glibc");
}

TEST_CASE("Plan: destinations: the log from EDASHIM_LOG or off, the probe only where it exists", "[plan]") {
  PlanFixture f;
  f.tool("mytool");
  auto p = f.plan("mytool", {"EDASHIM_LOG=" + f.t.path + "/runs.jsonl"});
  CHECK(p.log_path == f.t.path + "/runs.jsonl");
  CHECK(p.probe_library.empty());  // not installed in this fixture
  f.t.write("lib/libedashim_probe.so", "");
  p = f.plan("mytool", {"EDASHIM_LOG=off"});
  CHECK(p.log_path.empty());
  CHECK(p.probe_library == f.files.probe_library);
}

// Issue 16 item 4: one function expands the log path for runs, explain, doctor and the
// commands that read the log (report, recommend, bench), so that they all name one file.
TEST_CASE("Plan: a log path with {host} is this machine's file, the same for a run and for report", "[plan][log_path]") {
  PlanFixture f;
  f.tool("mytool");
  f.t.write("user/config.toml", "log = \"" + f.t.path + "/logs/{host}.jsonl\"\n");
  std::string host = util::host_name();
  REQUIRE_FALSE(host.empty());
  std::string expected = f.t.path + "/logs/" + config::safe_host_name(host) + ".jsonl";
  auto p = f.plan("mytool");
  CHECK_FALSE(p.loaded.has_errors());
  CHECK(p.log_path == expected);
  CHECK(p.host == host);  // read once, kept for the record's "host" field
  auto cur = pipeline::current_log(f.files, f.env());
  CHECK(cur.path == expected);
  CHECK(cur.origin.str() == f.files.user_file + ":1");
  CHECK(cur.problems.empty());
  // EDASHIM_LOG wins, {host} and all; "off" is off for both.
  p = f.plan("mytool", {"EDASHIM_LOG=" + f.t.path + "/env-{host}.jsonl"});
  CHECK(p.log_path == f.t.path + "/env-" + config::safe_host_name(host) + ".jsonl");
  CHECK(pipeline::current_log(f.files, f.env({"EDASHIM_LOG=off"})).path.empty());
  // Without {host}, no gethostname before the run: the record reads it while the tool runs.
  p = f.plan("mytool", {"EDASHIM_LOG=" + f.t.path + "/plain.jsonl"});
  CHECK(p.log_path == f.t.path + "/plain.jsonl");
  CHECK(p.host.empty());
}

TEST_CASE("Plan: an unknown placeholder in the log path is a configuration error, for report too", "[plan][log_path]") {
  PlanFixture f;
  f.tool("mytool");
  f.t.write("user/config.toml", "\nlog = \"" + f.t.path + "/logs/{user}.jsonl\"\n");
  auto p = f.plan("mytool");
  CHECK(p.loaded.has_errors());
  CHECK(has_problem(p, f.files.user_file + ":2:"));
  CHECK(has_problem(p, "unknown placeholder {user}"));
  auto cur = pipeline::current_log(f.files, f.env());
  REQUIRE(cur.problems.size() == 1);
  CHECK(cur.problems[0].str().find("unknown placeholder {user}") != std::string::npos);
}

TEST_CASE("Plan: log_path_of: off, the default, and {host} from the host given", "[plan][log_path]") {
  std::string host = "given";
  CHECK(pipeline::log_path_of("off", host).empty());
  CHECK(pipeline::log_path_of("", host) == runlog::default_path());
  CHECK(pipeline::log_path_of("/l/{host}.jsonl", host) == "/l/given.jsonl");
  host = "../up";
  CHECK(pipeline::log_path_of("/l/{host}.jsonl", host) == "/l/___up.jsonl");
}

TEST_CASE("Plan: the tool's environment carries the chain marker and the probe's file", "[plan]") {
  PlanFixture f;
  f.tool("mytool");
  auto p = f.plan("mytool");
  auto env = pipeline::plan_environment(p, f.env({"__EDASHIM_CHAIN=/x/edashim"}), "", "/tmp/records");
  auto chain = run::lookup(env.env, pipeline::kChainVar);
  REQUIRE(chain);
  CHECK(chain->rfind("/x/edashim:", 0) == 0);  // the inherited chain, then this binary
  CHECK(run::lookup(env.env, pipeline::kProbeVar) == std::optional<std::string>("/tmp/records"));
}

TEST_CASE("The tool is the name of the path the kernel executed, not argv[0]", "[plan][transparency]") {
  // Issue 13 item 5: (exec -a custom yosys), subprocess's executable=.
  CHECK(pipeline::invoked_name("/home/u/.local/lib/edashim/shims/yosys", "custom") == "yosys");
  CHECK(pipeline::invoked_name("./yosys", "edashim") == "yosys");
  CHECK(pipeline::invoked_name("/usr/local/bin/edashim", "yosys") == "edashim");
  // No usable path (fexecve gives the kernel a descriptor): argv[0], then edashim itself.
  CHECK(pipeline::invoked_name("/dev/fd/3", "/x/yosys") == "yosys");
  CHECK(pipeline::invoked_name(nullptr, "yosys") == "yosys");
  CHECK(pipeline::invoked_name(nullptr, nullptr) == "edashim");
}

namespace {
int script_checks = 0;
bool every_file_a_script(const char*) { return ++script_checks, true; }
bool no_file_a_script(const char*) { return ++script_checks, false; }
}  // namespace

TEST_CASE("A script whose #! line names a link is run as that link's tool", "[plan][transparency]") {
  // `#!/home/u/shims/yosys -s` in synth.ys: the kernel executed the script (AT_EXECFN) and gave
  // the interpreter, as the #! line wrote it, as argv[0].
  script_checks = 0;
  CHECK(pipeline::invoked_name("./synth.ys", "/home/u/shims/yosys", every_file_a_script) == "yosys");
  CHECK(pipeline::invoked_name("synth.ys", "shims/yosys", every_file_a_script) == "yosys");
  CHECK(script_checks == 2);
  // `(exec -a custom yosys)`: the two names differ, but the path executed is the link, no script.
  CHECK(pipeline::invoked_name("/home/u/shims/yosys", "custom", no_file_a_script) == "yosys");
  CHECK(script_checks == 3);
  // The same name (the usual start) reads no file; no argv[0] gives no name to take.
  CHECK(pipeline::invoked_name("/home/u/shims/yosys", "yosys", every_file_a_script) == "yosys");
  CHECK(pipeline::invoked_name("./synth.ys", "", every_file_a_script) == "synth.ys");
  CHECK(script_checks == 3);
  // `#!/usr/local/bin/edashim ...`: the command, not a tool named after the script.
  CHECK(pipeline::invoked_name("./flow.sh", "/usr/local/bin/edashim", every_file_a_script) == "edashim");
}

TEST_CASE("starts_with_hashbang reads the first two bytes of a file", "[plan][transparency]") {
  TempDir t;
  t.write("script", "#!/bin/sh\n");
  t.write("elf", "\x7f" "ELF");
  t.write("one", "#");
  CHECK(util::starts_with_hashbang((t.path + "/script").c_str()));
  CHECK_FALSE(util::starts_with_hashbang((t.path + "/elf").c_str()));
  CHECK_FALSE(util::starts_with_hashbang((t.path + "/one").c_str()));
  CHECK_FALSE(util::starts_with_hashbang((t.path + "/missing").c_str()));
  // A FIFO put where the script was: answered at once, no writer waited for.
  REQUIRE(::mkfifo((t.path + "/fifo").c_str(), 0600) == 0);
  CHECK_FALSE(util::starts_with_hashbang((t.path + "/fifo").c_str()));
}

// Exploration (issue 15 item 1): the decision with an injected random source.
namespace {
// A source that returns the given values in turn (then the last again).
pipeline::RandomSource sequence(std::vector<uint64_t> values) {
  auto i = std::make_shared<size_t>(0);
  return [values, i] { return values[std::min((*i)++, values.size() - 1)]; };
}
}  // namespace

TEST_CASE("Explore: a drawn run takes a candidate other than the current arm and records both", "[plan][explore]") {
  PlanFixture f;
  f.tool("yosys");
  f.t.write("user/config.toml", "explore = 0.25\nexplore_profiles = [\"jemalloc\", \"mimalloc\"]\n");
  auto p = f.plan("yosys");
  REQUIRE(p.arm == "jemalloc");  // the shipped yosys profile
  CHECK(pipeline::why_not_explore(p, f.env()).empty());
  // 0.3 of the range does not draw with a share of 0.25; 0.2 does.
  CHECK_FALSE(pipeline::maybe_explore(p, f.files, f.env(), sequence({uint64_t(0.3 * 0x1p64), 0})));
  CHECK(p.explored.empty());
  // Drawn: jemalloc is the current arm, so whichever order, mimalloc runs.
  for (uint64_t order : {0ULL, 1ULL, 2ULL, 12345ULL}) {
    auto q = f.plan("yosys");
    REQUIRE(pipeline::maybe_explore(q, f.files, f.env(), sequence({uint64_t(0.2 * 0x1p64), order})));
    CHECK(q.explored == "mimalloc");
    CHECK(q.explored_instead_of == "jemalloc");
    CHECK(q.arm == "mimalloc");
    CHECK(q.inv.chosen.profile == "mimalloc");  // the log's "profile": what ran
    CHECK(q.allocator_library.find("libmimalloc") != std::string::npos);
  }
}

TEST_CASE("Explore: \"system\" changes the allocator alone, and with no candidate but the current arm nothing explores", "[plan][explore]") {
  PlanFixture f;
  f.tool("yosys");
  f.t.write("user/config.toml", "explore = 1\nexplore_profiles = [\"system\"]\n");
  auto p = f.plan("yosys");
  REQUIRE(p.loaded.settings.scratch.value);  // the shipped yosys profile
  REQUIRE(pipeline::maybe_explore(p, f.files, f.env(), sequence({0})));
  CHECK(p.explored == "system");
  CHECK(p.inv.chosen.profile.empty());
  CHECK(p.arm == "system");
  CHECK(p.allocator_library.empty());
  CHECK(p.loaded.settings.scratch.value);  // not the baseline profile's scratch = false
  f.t.write("user/config.toml", "explore = 1\nexplore_profiles = [\"jemalloc\"]\n");
  auto q = f.plan("yosys");
  CHECK_FALSE(pipeline::maybe_explore(q, f.files, f.env(), sequence({0})));
  CHECK(q.explored.empty());
  CHECK(q.arm == "jemalloc");
}

TEST_CASE("Explore: never with EDASHIM_EXPLORE=0, a chosen profile or allocator, the caller's preload, or a blocker", "[plan][explore]") {
  PlanFixture f;
  f.tool("yosys");
  f.tool("staticyosys", "proof_static");
  f.t.write("user/config.toml", "explore = 1\nexplore_profiles = [\"mimalloc\"]\n[tool.staticyosys]\nallocator = \"jemalloc\"\n");
  auto always = sequence({0});
  auto p = f.plan("yosys");
  CHECK_FALSE(pipeline::maybe_explore(p, f.files, f.env({"EDASHIM_EXPLORE=0"}), always));
  CHECK(pipeline::why_not_explore(p, f.env({"EDASHIM_EXPLORE=0"})).find("EDASHIM_EXPLORE=0") != std::string::npos);
  CHECK_FALSE(pipeline::maybe_explore(p, f.files, f.env({"EDASHIM_EXPLORE=maybe"}), always));
  CHECK(pipeline::maybe_explore(p, f.files, f.env({"EDASHIM_EXPLORE=1"}), always));
  auto chosen = f.plan("yosys", {}, "tcmalloc");  // --allocator
  CHECK_FALSE(pipeline::maybe_explore(chosen, f.files, f.env(), always));
  CHECK(pipeline::why_not_explore(chosen, f.env()).find("--allocator") != std::string::npos);
  std::string jemalloc = std::string(kLibDir) + "/libjemalloc.so.2";
  auto preloaded = f.plan("yosys", {"LD_PRELOAD=" + jemalloc});
  CHECK_FALSE(pipeline::maybe_explore(preloaded, f.files, f.env({"LD_PRELOAD=" + jemalloc}), always));
  CHECK(preloaded.arm == "jemalloc");
  auto blocked = f.plan("staticyosys");
  REQUIRE(blocked.preflight.blocker == tool::Blocker::static_exe);
  CHECK(blocked.arm == "system");  // the preload could not work
  CHECK_FALSE(pipeline::maybe_explore(blocked, f.files, f.env(), always));
  f.t.write("user/config.toml", "explore_profiles = [\"mimalloc\"]\n");  // explore off by default
  auto off = f.plan("yosys");
  CHECK_FALSE(pipeline::maybe_explore(off, f.files, f.env(), always));
}

TEST_CASE("Explore: an untrusted project file cannot turn it on", "[plan][explore][trust]") {
  PlanFixture f;
  f.tool("yosys");
  f.t.write("work/.edashim.toml", "explore = 1\nexplore_profiles = [\"mimalloc\"]\nadopt = true\n");
  auto p = f.plan("yosys");
  CHECK(p.loaded.settings.explore.value == 0);
  CHECK(p.loaded.settings.adopt.value == false);
  REQUIRE(p.loaded.untrusted_files.size() == 1);
  CHECK(ignored_keys(p.loaded, p.loaded.untrusted_files[0]) == std::vector<std::string>{"adopt", "explore", "explore_profiles"});
  CHECK_FALSE(pipeline::maybe_explore(p, f.files, f.env(), sequence({0})));
}

TEST_CASE("Arm: the allocator family with its options sorted by name", "[plan][explore]") {
  PlanFixture f;
  f.tool("yosys");
  f.t.write("user/config.toml", "[tool.yosys]\nallocator = \"mimalloc\"\n[mimalloc]\nlarge_os_pages = false\neager_commit_delay = 4\n");
  CHECK(f.plan("yosys").arm == "mimalloc[eager_commit_delay=4,large_os_pages=false]");
  f.t.write("user/config.toml", "[tool.yosys]\nallocator = \"system\"\n");
  CHECK(f.plan("yosys").arm == "system");
}

TEST_CASE("Plan: the log line and the warning read the facts make_plan decided", "[plan][log]") {
  PlanFixture f;
  f.tool("yosys", "proof_static");
  auto p = f.plan("yosys");
  REQUIRE(p.fallback_library == std::string(kLibDir) + "/libjemalloc.so.2");
  CHECK(p.fallback_source == "[glibc_fallback] from " + std::string(EDASHIM_PROFILES_DIR) + "/defaults/all.toml");
  CHECK(p.fallback_effect == (p.preflight.facts.glibc_static
                                  ? "its static glibc reads GLIBC_TUNABLES at start"
                                  : "it is not a static glibc program, so GLIBC_TUNABLES likely does nothing for it"));
  CHECK(p.arm == "system");  // the preload could not work
  pipeline::RunSetup setup;
  setup.env = pipeline::plan_environment(p, f.env(), "");
  run::Outcome started;
  auto line = pipeline::start_fields(p, setup, started);
  REQUIRE(line.preflight.fallback);
  CHECK(line.preflight.fallback->source == p.fallback_source);
  CHECK(line.preflight.fallback->effect == p.fallback_effect);
  CHECK(line.arm == p.arm);
  CHECK(pipeline::preflight_warning(p).find("(" + p.fallback_source + ") instead: " + p.fallback_effect) !=
        std::string::npos);

  // The caller's own jemalloc under a profile asking for mimalloc: the probe must find jemalloc.
  f.tool("yosys");
  f.t.write("user/config.toml", "[tool.yosys]\nallocator = \"mimalloc\"\n");
  std::string jemalloc = std::string(kLibDir) + "/libjemalloc.so.2";
  auto q = f.plan("yosys", {"LD_PRELOAD=" + jemalloc});
  CHECK(q.allocator == "mimalloc");
  CHECK(q.preloaded_by_caller == jemalloc);
  CHECK(q.allocator_to_find == "jemalloc");
  CHECK(q.arm == "jemalloc");
  CHECK(q.fallback_source.empty());
  setup.env = pipeline::plan_environment(q, f.env({"LD_PRELOAD=" + jemalloc}), "");
  setup.probed = true;
  run::Outcome out;
  auto end = pipeline::end_fields(q, setup, out, "S\t100\t99\t" + q.tool_path + "\t" + jemalloc + "\n");
  CHECK(end.allocator_verified);
  CHECK(pipeline::start_fields(q, setup, started).arm == "jemalloc");
  // No preload of the caller's: the allocator asked for.
  CHECK(f.plan("yosys").allocator_to_find == "mimalloc");
}

TEST_CASE("Plan: the plain run of a broken configuration decides its arm and allocator again", "[plan][log]") {
  PlanFixture f;
  f.tool("yosys");
  f.t.write("user/config.toml", "[tool.yosys]\nallocator = \"jemalloc\"\n[tool.yosys.jemalloc]\nnarenas = 2\n");
  auto p = f.plan("yosys");
  REQUIRE(p.arm != "system");  // jemalloc with its option
  auto plain = pipeline::plain_run(p);
  CHECK(plain.arm == "system");
  CHECK(plain.allocator_to_find == "system");
  CHECK(plain.allocator_library.empty());
  REQUIRE(!p.allocator_version.empty());
  CHECK(plain.allocator_version.empty());  // not jemalloc's version under "system"
  // A static tool's glibc fallback is edashim's too: gone with its words.
  f.tool("yosys", "proof_static");
  auto s = pipeline::plain_run(f.plan("yosys"));
  CHECK(s.fallback_library.empty());
  CHECK(s.fallback_source.empty());
  CHECK(s.fallback_effect.empty());
  // The caller's own preload stays what runs.
  f.tool("yosys");
  std::string jemalloc = std::string(kLibDir) + "/libjemalloc.so.2";
  auto c = pipeline::plain_run(f.plan("yosys", {"LD_PRELOAD=" + jemalloc}));
  CHECK(c.arm == "jemalloc");
  CHECK(c.allocator_to_find == "jemalloc");
}

TEST_CASE("Plan: a library left out of LD_PRELOAD for its path is named with what that costs and the fix", "[plan]") {
  pipeline::Plan plan;
  CHECK(pipeline::unsafe_preload_note(plan).empty());
  plan.allocator = "jemalloc";
  plan.unsafe_preloads = {"/opt/my libs/libjemalloc.so.2", "/home/Jane Doe/lib/edashim/libedashim_probe.so"};
  auto note = pipeline::unsafe_preload_note(plan);
  CHECK(note.find("/opt/my libs/libjemalloc.so.2 is left out of LD_PRELOAD (ld.so splits it at spaces and colons): "
                  "jemalloc is not used") != std::string::npos);
  CHECK(note.find("library_dirs") != std::string::npos);
  CHECK(note.find("/home/Jane Doe/lib/edashim/libedashim_probe.so is left out of LD_PRELOAD") != std::string::npos);
  CHECK(note.find("install/install.sh --prefix DIR") != std::string::npos);
}
