// runlog/write.cpp: the run's line from plain values, byte for byte as logs already on disk hold
// it (report, recommend and bench read those), and read back by runlog/read.cpp.
#include <catch2/catch.hpp>

#include "runlog/read.hpp"
#include "runlog/write.hpp"

namespace {

runlog::RunStart a_start() {
  runlog::RunStart s;
  s.start_time = 1800000000.5;
  s.tool = "yosys";
  s.path = "/usr/bin/yosys";
  s.argv = {"yosys", "-q", "x\ty"};
  s.cwd = "/w";
  s.host = "h1";
  s.pid = 100;
  s.tool_pid = 101;
  s.run_id = "0123456789abcdef";
  s.flow = "fedcba9876543210";
  s.profile = "fast";
  s.config_files = {"/u/config.toml"};
  s.notices = {"said \"once\""};
  s.requested = "jemalloc";
  s.library = "/lib/libjemalloc.so.2";
  s.version = "5.3.0";
  s.build = "edashim";
  s.note = "n";
  s.env_set = {{"LD_PRELOAD", "/lib/libjemalloc.so.2"}, {"MALLOC_CONF", std::nullopt}};
  s.env_kept = {{"TMPDIR", "/t"}};
  s.scratch_dir = "/s";
  s.scratch_kept = true;
  s.scratch_note = "made";
  s.preflight.inspected = true;
  s.preflight.path = "/usr/bin/yosys";
  s.preflight.scripts = {"/a.sh"};
  s.preflight.binary = "/usr/bin/yosys";
  s.preflight.kind = "dynamic";
  s.preflight.preload_reaches = true;
  s.preflight.fallback = runlog::PreflightFields::Fallback{"jemalloc", "glibc", "", std::string("glibc.malloc.arena_max=2"), "e"};
  s.arm = "jemalloc";
  s.explored = "mi";
  s.explored_instead_of = "jemalloc";
  s.machine = {std::string("CPU X"), "6.1", 8};
  s.signature = "a17fefa3a8a86221";
  s.signature_text = "yosys -q 'x\ty'";
  return s;
}

runlog::RunEnd an_end() {
  runlog::RunEnd e;
  e.wall_s = 1.25;
  e.user_s = 2.5;
  e.sys_s = 0.25;
  e.max_rss_kb = 12345;
  e.exit_code = 0;
  e.scratch_left_in_use = false;
  e.status = 0;
  e.processes = std::vector<runlog::ProcessFields>{{7, 1, "/usr/bin/yosys", "/lib/libjemalloc.so.2", "jemalloc", false, "exit",
                                                    900, std::nullopt}};
  e.allocator_verified = true;
  e.verification = "1 process(es) recorded";
  e.not_applied = std::vector<std::string>{};
  return e;
}

}  // namespace

// The expected line is the format of the logs on disk (v 1), written out by hand from the schema's
// order; a change here is a change of the format every existing reader and log depends on.
TEST_CASE("Run log writer: a run's line, byte for byte", "[runlog]") {
  util::JsonWriter j;
  runlog::write_start(j, a_start());
  runlog::write_end(j, an_end());
  CHECK(j.str() ==
        R"({"v":1,"start":"2027-01-15T08:00:00.500Z","start_unix":1800000000.5,"tool":"yosys","path":"/usr/bin/yosys",)"
        R"("argv":["yosys","-q","x\ty"],"cwd":"/w","host":"h1","pid":100,"tool_pid":101,"run_id":"0123456789abcdef",)"
        R"("flow":"fedcba9876543210","parent_run":null,"profile":"fast","config_files":["/u/config.toml"],"config_ignored":[],"notices":["said \"once\""],)"
        R"("allocator":{"requested":"jemalloc","library":"/lib/libjemalloc.so.2","version":"5.3.0","build":"edashim","note":"n",)"
        R"("preloaded_by_caller":null},"env_set":{"LD_PRELOAD":"/lib/libjemalloc.so.2","MALLOC_CONF":null},)"
        R"("env_kept":{"TMPDIR":"/t"},"scratch":{"dir":"/s","kept":true,"note":"made"},)"
        R"("preflight":{"inspected":true,"path":"/usr/bin/yosys","scripts":["/a.sh"],"binary":"/usr/bin/yosys",)"
        R"("kind":"dynamic","own_malloc":false,"linked_allocator":null,"secure_exec":null,"glibc_static":false,)"
        R"("preload_reaches":true,"blocker":null,"reason":null,"note":null,"cached":false,)"
        R"("fallback":{"instead_of":"jemalloc","options":"glibc","source":null,)"
        R"("glibc_tunables":"glibc.malloc.arena_max=2","effect":"e"}},)"
        R"("arm":"jemalloc","explore":{"ran":"mi","instead_of":"jemalloc"},)"
        R"("machine":{"cpu":"CPU X","kernel":"6.1","cores":8},"signature":"a17fefa3a8a86221",)"
        R"("signature_text":"yosys -q 'x\ty'","wall_s":1.25,"user_s":2.5,"sys_s":0.25,"max_rss_kb":12345,)"
        R"("exit_code":0,"signal":null,"scratch_left_in_use":false,"status":0,)"
        R"("processes":[{"pid":7,"ppid":1,"exe":"/usr/bin/yosys","malloc":"/lib/libjemalloc.so.2",)"
        R"("provider":"jemalloc","forked":false,"end":"exit","vm_hwm_kb":900,"vm_peak_kb":null}],)"
        R"("allocator_verified":true,"verification":"1 process(es) recorded","not_applied":[]})");
}

TEST_CASE("Run log writer: without the probe, processes is null and not_applied absent, and no scratch_left_in_use without a scratch",
          "[runlog]") {
  auto e = an_end();
  e.processes.reset();
  e.not_applied.reset();
  e.scratch_left_in_use.reset();
  e.exit_code.reset();
  e.signal = 9;
  e.status = 137;
  util::JsonWriter j;
  j.begin_object();  // the end alone: write_start's part is checked above
  runlog::write_end(j, e);
  CHECK(j.str() == R"({"wall_s":1.25,"user_s":2.5,"sys_s":0.25,"max_rss_kb":12345,"exit_code":null,"signal":9,"status":137,)"
                   R"("processes":null,"allocator_verified":true,"verification":"1 process(es) recorded"})");
}

TEST_CASE("Run log: every field the writer sets is read back by the reader", "[runlog]") {
  util::JsonWriter j;
  auto s = a_start();
  s.parent_run = "1111222233334444";
  runlog::write_start(j, s);
  runlog::write_end(j, an_end());
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(j.str(), r));
  CHECK(r.start_unix == 1800000000.5);
  CHECK(r.tool == "yosys");
  CHECK(r.path == "/usr/bin/yosys");
  CHECK(r.argv == s.argv);
  CHECK(r.cwd == "/w");
  CHECK(r.host == "h1");
  CHECK(r.run_id == s.run_id);
  CHECK(r.flow == s.flow);
  CHECK(r.parent_run == s.parent_run);
  CHECK(r.profile == "fast");
  CHECK(r.allocator_requested == "jemalloc");
  CHECK(r.arm == "jemalloc");
  CHECK(r.explored);
  CHECK(r.has_machine);
  CHECK(r.cpu == "CPU X");
  CHECK(r.signature == s.signature);
  CHECK(r.wall_s == 1.25);
  CHECK(r.user_s == 2.5);
  CHECK(r.sys_s == 0.25);
  CHECK(r.max_rss_kb == 12345);
  CHECK_FALSE(r.untimed);
  CHECK(r.exit_code == std::optional<long>(0));
  CHECK_FALSE(r.signal);
  CHECK(r.status == std::optional<long>(0));
  CHECK(r.probed);
  CHECK_FALSE(r.vm_peak_kb);  // the one process did not say
  CHECK(r.allocator_verified == std::optional<bool>(true));
  CHECK(r.ok());
}

TEST_CASE("Run log: the untimed ends (configuration error, fallback, traced) read back as untimed", "[runlog]") {
  auto line = [](void (*end)(util::JsonWriter&, std::string_view), std::string_view what) {
    util::JsonWriter j;
    runlog::write_start(j, a_start());
    end(j, what);
    return j.str();
  };
  runlog::RunRecord r;
  std::string config_error = line(runlog::end_config_error, "/u/config.toml:3:1: unknown key");
  CHECK(config_error.ends_with(R"(,"config_error":"/u/config.toml:3:1: unknown key","wall_s":null,"user_s":null,)"
                               R"("sys_s":null,"max_rss_kb":null,"status":null})"));
  REQUIRE(runlog::parse_run_line(config_error, r));
  CHECK(r.untimed);
  CHECK(r.config_error == "/u/config.toml:3:1: unknown key");
  CHECK_FALSE(r.status);

  std::string fallback = line(runlog::end_fallback, "exec in place of edashim");
  CHECK(fallback.ends_with(R"("signature_text":"yosys -q 'x\ty'","fallback":"exec in place of edashim","status":null})"));
  REQUIRE(runlog::parse_run_line(fallback, r));
  CHECK_FALSE(r.status);
  CHECK_FALSE(r.ok());

  std::string traced = line(runlog::end_traced, "strace (pid 9)");
  CHECK(traced.ends_with(R"x(,"traced":"strace (pid 9)","wall_s":null,"user_s":null,"sys_s":null,"max_rss_kb":null,"status":null})x"));
  REQUIRE(runlog::parse_run_line(traced, r));
  CHECK(r.untimed);
}
