// Hardening (issue 6): config files that are hostile or malformed, log rotation under
// concurrent writers and full disks, the scratch base search on bad candidates.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "config/load.hpp"
#include "run/environment.hpp"
#include "run/scratch.hpp"
#include "runlog/append.hpp"
#include "config_fixture.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"
#include "util/strings.hpp"

namespace {

std::vector<std::string> lines_of(const std::string& path) {
  auto text = util::read_file(path);
  if (!text) return {};
  auto lines = util::split(*text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

bool is_root() { return ::getuid() == 0; }

}  // namespace

TEST_CASE("Hostile config: escaped NULs and malformed variable names are refused", "[hardening][config]") {
  TempDir t;
  t.write("user/config.toml",
          "locale = \"C\\u0000x\"\n[env]\nOK = \"fine\"\nNULVAL = \"a\\u0000b\"\n\"A=B\" = \"c\"\n\"\" = \"d\"\n"
          "\"N\\u0000M\" = \"e\"\n[tool.yosys]\npath = \"/usr/bin/yosys\\u0000.evil\"\n[mimalloc]\nverbose = \"1\\u00002\"\n");
  auto loaded = config::load(request_in(t));
  CHECK(loaded.settings.env.empty());  // a file with errors applies nothing, not even OK
  CHECK(loaded.settings.locale.value.empty());
  CHECK(loaded.settings.tool_path.value.empty());
  CHECK(loaded.settings.options.empty());
  CHECK(mentions(loaded, "'locale' contains a NUL character"));
  CHECK(mentions(loaded, "[env] NULVAL contains a NUL character"));
  CHECK(mentions(loaded, "[env] \"A=B\" is not a variable name"));
  CHECK(mentions(loaded, "'path' contains a NUL character"));
  CHECK(mentions(loaded, "[mimalloc] verbose contains a NUL character"));
}

TEST_CASE("Hostile config: FIFOs, devices, directories and symlink loops are not read and do not hang", "[hardening][config]") {
  TempDir t;
  std::string f = t.path + "/user/config.toml";
  util::make_dirs(t.path + "/user");
  auto r = request_in(t);
  SECTION("FIFO") { REQUIRE(::mkfifo(f.c_str(), 0600) == 0); }
  SECTION("symlink to a character device") { REQUIRE(::symlink("/dev/zero", f.c_str()) == 0); }
  SECTION("directory") { REQUIRE(::mkdir(f.c_str(), 0700) == 0); }
  SECTION("symlink loop") { REQUIRE(::symlink(f.c_str(), f.c_str()) == 0); }
  auto loaded = config::load(r);  // a FIFO would block here forever without O_NONBLOCK
  CHECK(loaded.has_errors());
  CHECK(mentions(loaded, "cannot read this config file"));
  REQUIRE_FALSE(loaded.files.empty());
  CHECK_FALSE(loaded.files.back().used);
}

TEST_CASE("Hostile config: huge and deeply nested files are errors, not crashes", "[hardening][config]") {
  TempDir t;
  auto r = request_in(t);
  std::string text;
  SECTION("over 1 MiB") { text = "# " + std::string(2 << 20, 'x') + "\n"; }
  SECTION("deep arrays") { text = "a = " + std::string(100000, '[') + std::string(100000, ']') + "\n"; }
  SECTION("deep inline tables") {
    for (int i = 0; i < 20000; ++i) text += "{b=";
    text = "a = " + text + "1" + std::string(20000, '}') + "\n";
  }
  SECTION("long dotted key") {  // 500000 levels overflowed the stack inside toml++
    for (int i = 0; i < 499990; ++i) text += "a.";
    text += "a = 1\n";
  }
  SECTION("deep table name") {
    for (int i = 0; i < 300; ++i) text += "t.";
    text = "[" + text + "t]\nx = 1\n";
  }
  SECTION("duplicate keys") { text = "allocator = \"mimalloc\"\nallocator = \"jemalloc\"\n"; }
  SECTION("invalid UTF-8") { text = "locale = \"C\xff\xfe\"\n"; }
  t.write("user/config.toml", text);
  auto loaded = config::load(r);
  CHECK(loaded.has_errors());
  CHECK(loaded.settings.allocator.value == "system");
}

TEST_CASE("Hostile config: dots inside strings and comments do not count as nesting", "[hardening][config]") {
  TempDir t;
  std::string dots(400, '.');
  t.write("user/config.toml", "# " + dots + "\nlocale = \"C\" # " + dots + "\n[env]\nA = \"" + dots + "\"\nB = '" + dots +
                                  "'\nC = \"\"\"\n" + dots + "\n\"\"\"\n[profile.p.env]\n\"a." + dots + "\" = \"x\"\n");
  auto loaded = config::load(request_in(t));
  INFO((loaded.problems.empty() ? "" : loaded.problems[0].str()));
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.env.at("A").value == dots);
  CHECK(loaded.settings.env.at("C").value == dots + "\n");
}

TEST_CASE("Trust: a symlinked project file is checked at its target's owner", "[hardening][trust]") {
  if (!is_root()) EDASHIM_SKIP("not root: cannot chown a file to another user");
  TempDir t;
  auto target = t.write("elsewhere/config.toml", "locale = \"C\"\n");
  auto r = request_in(t);
  REQUIRE(::symlink(target.c_str(), (t.path + "/proj/.edashim.toml").c_str()) == 0);
  CHECK(config::load(r).settings.locale.value == "C");
  REQUIRE(::chown(target.c_str(), 65534, 65534) == 0);
  auto loaded = config::load(r);
  CHECK(loaded.settings.locale.value.empty());
  CHECK(mentions(loaded, "(uid 65534)"));
  CHECK_FALSE(loaded.has_errors());  // a refusal is a warning: the rest of the configuration applies
}

TEST_CASE("Trust: the upward search stops at a directory another user owns", "[hardening][trust]") {
  if (!is_root()) EDASHIM_SKIP("not root: cannot chown a directory to another user");
  TempDir t;
  t.write("a/.edashim.toml", "");
  t.write("a/b/.edashim.toml", "");
  t.write("a/b/c/.edashim.toml", "");
  REQUIRE(::chown((t.path + "/a/b").c_str(), 65534, 65534) == 0);
  std::string why;
  auto files = config::project_files(t.path + "/a/b/c", &why);
  REQUIRE(files.size() == 1);
  CHECK(files[0] == t.path + "/a/b/c/.edashim.toml");
  CHECK(why == "stopped at " + t.path + "/a/b: owned by another user");
}

TEST_CASE("Config: log_max_mb and log_keep are validated, and restricted in untrusted project files", "[hardening][config]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  t.write("user/config.toml", "log_max_mb = 0.5\nlog_keep = 7\n");
  auto loaded = config::load(r);
  REQUIRE_FALSE(loaded.has_errors());
  CHECK(loaded.settings.log_max_bytes.value == 512 * 1024);
  CHECK(loaded.settings.log_keep.value == 7);
  CHECK(loaded.settings.log_keep.origin.line == 2);

  t.write("user/config.toml", "log_max_mb = -1\nlog_keep = 101\n");
  loaded = config::load(r);
  CHECK(mentions(loaded, "'log_max_mb' must be a size in MiB"));
  CHECK(mentions(loaded, "'log_keep' must be an integer from 0 to 100"));

  t.write("user/config.toml", "");
  auto project = t.write("proj/.edashim.toml", "log_max_mb = 0\nlog_keep = 0\n");
  loaded = config::load(r);
  CHECK(loaded.settings.log_max_bytes.value == 64 << 20);  // the default stands
  CHECK(loaded.settings.log_keep.value == 3);
  CHECK(loaded.untrusted_files.size() == 1);
  REQUIRE(store.trust(project, "log_max_mb = 0\nlog_keep = 0\n").ok());
  loaded = config::load(r);
  CHECK(loaded.settings.log_max_bytes.value == 0);
  CHECK(loaded.settings.log_keep.value == 0);
}

TEST_CASE("Run log: rotation keeps N old files and loses no line", "[hardening][runlog]") {
  TempDir t;
  std::string log = t.path + "/runs.jsonl";
  runlog::Limits limits{1000, 2};
  std::string line(99, 'x');  // 100 bytes a line with the newline: 10 lines a file
  for (int i = 0; i < 35; ++i) REQUIRE(runlog::append_line(log, line, limits).ok());
  CHECK(lines_of(log).size() == 5);
  CHECK(lines_of(log + ".1").size() == 10);
  CHECK(lines_of(log + ".2").size() == 10);
  CHECK_FALSE(util::exists(log + ".3"));  // the oldest went
  // keep = 0: the log starts over.
  for (int i = 0; i < 6; ++i) REQUIRE(runlog::append_line(log, line, {1000, 0}).ok());
  CHECK(lines_of(log).size() == 1);
  // A line larger than the limit still goes in, alone.
  REQUIRE(runlog::append_line(log, std::string(5000, 'y'), limits).ok());
  REQUIRE(runlog::append_line(log, line, limits).ok());
  CHECK(lines_of(log).size() == 1);
  CHECK(lines_of(log + ".1") == std::vector<std::string>{std::string(5000, 'y')});
}

TEST_CASE("Run log: a path that names the process's own descriptor is told apart", "[hardening][runlog]") {
  // Opened before the exec in place (the watcher's own are /dev/null), never rotated (a 2> file
  // behind /dev/stderr would have had /dev/stderr renamed), not checked against the path again.
  for (const char* own : {"/dev/stderr", "/dev/stdout", "/dev/fd/7", "/proc/self/fd/2", "/dev/tty"})
    CHECK(runlog::names_own_descriptor(own));
  for (const char* file : {"/dev/null", "/tmp/runs.jsonl", "/dev/stderr-log/runs.jsonl", "/proc/1/fd/2", "/dev/ttyS0"})
    CHECK_FALSE(runlog::names_own_descriptor(file));
}

TEST_CASE("Run log: concurrent writers across rotations: every line whole, none lost", "[hardening][runlog]") {
  TempDir t;
  std::string log = t.path + "/runs.jsonl";
  constexpr int kWriters = 16, kLines = 150;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      for (int i = 0; i < kLines; ++i) {
        nlohmann::json j = {{"w", w}, {"i", i}, {"pad", std::string(size_t(100 + (i * 37) % 3000), 'p')}};
        if (!runlog::append_line(log, j.dump(), {20000, 1000}).ok()) ::_exit(1);
      }
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t p : pids) {
    int status = 0;
    REQUIRE(::waitpid(p, &status, 0) == p);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  std::set<std::pair<int, int>> seen;
  size_t total = 0, files = 0;
  for (int k = 0; k <= 1000; ++k) {
    std::string path = k == 0 ? log : log + "." + std::to_string(k);
    if (!util::exists(path)) continue;
    ++files;
    struct stat st;
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(st.st_size <= 20000 + 3200);  // never past the limit by more than one line
    for (const auto& l : lines_of(path)) {
      auto j = nlohmann::json::parse(l, nullptr, false);
      REQUIRE_FALSE(j.is_discarded());
      seen.insert({j["w"].get<int>(), j["i"].get<int>()});
      ++total;
    }
  }
  CHECK(files > 10);
  CHECK(total == size_t(kWriters * kLines));
  CHECK(seen.size() == size_t(kWriters * kLines));
}

TEST_CASE("Run log: a full device fails the write cleanly and a device is never rotated", "[hardening][runlog]") {
  TempDir t;
  auto full = runlog::append_line("/dev/full", "{}", {1, 1});
  CHECK_FALSE(full.ok());
  CHECK(full.error().find("No space left on device") != std::string::npos);
  // A symlink to a device, with a limit it is far past: written through, never renamed.
  std::string link = t.path + "/log";
  REQUIRE(::symlink("/dev/null", link.c_str()) == 0);
  CHECK(runlog::append_line(link, "{}", {1, 1}).ok());
  CHECK(runlog::append_line(link, "{}", {1, 1}).ok());
  char target[64] = "";
  CHECK(::readlink(link.c_str(), target, sizeof target - 1) > 0);
  CHECK(std::string(target) == "/dev/null");
  CHECK_FALSE(util::exists(link + ".1"));
}

TEST_CASE("Scratch: bad candidates are skipped with the reason, a good one is used", "[hardening][scratch]") {
  TempDir t;
  auto none = run::find_scratch_base(0, "none", {"/nonexistent/x", t.path});
  CHECK(none.dir.empty());
  CHECK(none.note.find("/nonexistent/x: No such file or directory") != std::string::npos);
  if (std::string(t.path).rfind("/dev/shm", 0) != 0) CHECK(none.note.find(t.path + ": not tmpfs") != std::string::npos);
  CHECK(none.note.find("TMPDIR left as it was") != std::string::npos);
  auto too_small = run::find_scratch_base(int64_t(1) << 60, "scratch_min_free_mb = 1099511627776", {"/dev/shm"});
  CHECK(too_small.dir.empty());
  CHECK(too_small.note.find("scratch_min_free_mb = 1099511627776 asks for 1099511627776 MiB") != std::string::npos);
  auto ok = run::find_scratch_base(0, "none", {"/nonexistent/x", "/dev/shm"});
  CHECK(ok.dir == "/dev/shm");

  ::setenv("EDASHIM_SCRATCH_BASES", "/a:relative:/b", 1);
  CHECK(run::scratch_candidates() == std::vector<std::string>{"/a", "/b"});
  ::unsetenv("EDASHIM_SCRATCH_BASES");
  CHECK(run::scratch_candidates().front() == "/dev/shm");
}

TEST_CASE("Scratch: the sweep removes only directories nobody locks, whatever the PID in their name", "[hardening][scratch]") {
  TempDir t;
  std::string uid = std::to_string(::getuid());
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  std::string stale = t.path + "/edashim-" + uid + "-" + std::to_string(dead) + "-abcdef";
  std::string live = t.path + "/edashim-" + uid + "-" + std::to_string(::getpid()) + "-abcdef";
  std::string other = t.path + "/unrelated-" + std::to_string(dead);
  for (const auto& d : {stale, live, other}) util::make_dirs(d + "/inner");
  t.write(util::basename(stale) + "/inner/file", "x");
  // A live run in another PID namespace: its PID is dead here, its lock is held (issue 12 item 9).
  std::string elsewhere = t.path + "/edashim-" + uid + "-" + std::to_string(dead) + "-ghijkl";
  util::make_dirs(elsewhere);
  int held = ::open(elsewhere.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(::flock(held, LOCK_EX | LOCK_NB) == 0);
  run::sweep_stale_scratch(t.path);
  CHECK_FALSE(util::exists(stale));
  CHECK_FALSE(util::exists(live));  // our own PID, but nobody holds its lock: left by a killed run
  CHECK(util::exists(elsewhere));
  CHECK(util::exists(other));
  ::close(held);
}

TEST_CASE("Environment: [env] unsetting a variable an allocator option sets leaves it unset", "[hardening][environment]") {
  // Found by fuzz_environment: the front-placed MIMALLOC_* entry was built from an empty value.
  run::EnvInputs in;
  // Empty: not set by the caller (a value the caller set would win over [env], issue 13).
  in.current = {"PATH=/usr/bin", "MIMALLOC_VERBOSE="};
  in.options_family = "mimalloc";
  in.options = {{"eager_commit", int64_t(0)}, {"verbose", int64_t(1)}};
  in.env = {{"MIMALLOC_VERBOSE", std::nullopt}};
  auto plan = run::build_environment(in);
  CHECK_FALSE(run::lookup(plan.env, "MIMALLOC_VERBOSE").has_value());
  CHECK(run::lookup(plan.env, "MIMALLOC_EAGER_COMMIT") == "0");
  CHECK(plan.env.front() == "MIMALLOC_EAGER_COMMIT=0");
  CHECK(plan.env.size() == 2);
}

// Issue 12 item 1: allocator option strings were pasted into MALLOC_CONF as written, so a
// cloned project file could turn on jemalloc's heap profiler writing anywhere.
TEST_CASE("Config: allocator option values are checked against their grammar before any reaches the environment",
          "[hardening][config][options]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  // The user's own file: every key allowed, yet a value must still fit its option.
  t.write("user/config.toml",
          "[jemalloc]\nthp = \"default,prof:true,prof_prefix:/tmp/x/pwned\"\nnarenas = 0\npercpu_arena = \"percpu\"\n"
          "[mimalloc]\nreserve_os_memory = \"1G,x\"\narena_reserve = \"64MiB\"\n"
          "[tcmalloc]\nrelease_rate = nan\n[glibc]\nperturb = 256\n");
  auto loaded = config::load(r);
  CHECK(mentions(loaded, "config.toml:2:7: error: [jemalloc] thp is \"default,prof:true,prof_prefix:/tmp/x/pwned\", "
                         "expected one of: default, always, never"));
  CHECK(mentions(loaded, "config.toml:3:11: error: [jemalloc] narenas is 0, expected an integer from 1 to 4294967295"));
  CHECK(mentions(loaded, "[mimalloc] reserve_os_memory is \"1G,x\", expected a size"));
  CHECK(mentions(loaded, "[tcmalloc] release_rate is nan, expected a number from 0 to 1000"));
  CHECK(mentions(loaded, "[glibc] perturb is 256, expected an integer from 0 to 255"));
  const auto& je = loaded.settings.options["jemalloc"];
  CHECK_FALSE(je.count("thp"));  // refused values are not kept
  CHECK_FALSE(je.count("narenas"));
  CHECK_FALSE(je.count("percpu_arena"));  // nor anything else of a file with errors
  // The values that fit, alone in a file, are kept.
  t.write("user/config.toml", "[jemalloc]\npercpu_arena = \"percpu\"\n[mimalloc]\narena_reserve = \"64MiB\"\n");
  loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK(std::get<std::string>(loaded.settings.options["jemalloc"].at("percpu_arena").value) == "percpu");
  CHECK(std::get<std::string>(loaded.settings.options["mimalloc"].at("arena_reserve").value) == "64MiB");

  // A name carrying a separator is not an option name.
  t.write("user/config.toml", "[jemalloc]\n\"tcache,prof:true\" = true\n");
  loaded = config::load(r);
  CHECK(mentions(loaded, "[jemalloc] \"tcache,prof:true\" is not an option name"));
  CHECK(loaded.settings.options["jemalloc"].empty());
}

TEST_CASE("Config: allocator options that write files, abort or change the exit status are restricted",
          "[hardening][config][options]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  const std::string text =
      "[jemalloc]\nprof = true\nprof_final = true\nprof_prefix = \"/tmp/x\"\nprof_leak_error = true\nabort_conf = true\n"
      "stats_print = true\nbackground_thread = true\n[mimalloc]\ndisallow_os_alloc = true\nverbose = true\n"
      "[tcmalloc]\nheap_limit_mb = 1\n[glibc]\ncheck = 3\narena_max = 2\n";
  auto project = t.write("proj/.edashim.toml", text);
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());  // ignored, not refused: the rest of the file applies
  REQUIRE(loaded.untrusted_files.size() == 1);
  const auto& ignored = loaded.ignored.at(project);
  std::string all = util::join(ignored, "|");
  for (auto name : {"[jemalloc] prof ", "[jemalloc] prof_final", "[jemalloc] prof_prefix", "[jemalloc] prof_leak_error",
                    "[jemalloc] abort_conf", "[jemalloc] stats_print", "[mimalloc] disallow_os_alloc",
                    "[tcmalloc] heap_limit_mb", "[glibc] check"})
    CHECK(all.find(name) != std::string::npos);
  auto& opts = loaded.settings.options;
  CHECK(opts["jemalloc"].size() == 1);
  CHECK(opts["jemalloc"].count("background_thread"));
  CHECK(opts["mimalloc"].count("verbose"));  // printing to the tool's stderr is allowed
  CHECK_FALSE(opts["mimalloc"].count("disallow_os_alloc"));
  CHECK(opts["tcmalloc"].empty());
  CHECK(opts["glibc"].size() == 1);
  // Trusted, the known ones apply (prof* is in no table: the plan reports it as unknown).
  REQUIRE(store.trust(project, text).ok());
  loaded = config::load(r);
  CHECK(loaded.untrusted_files.empty());
  CHECK(loaded.settings.options["jemalloc"].count("abort_conf"));
  CHECK(loaded.settings.options["glibc"].count("check"));
}

TEST_CASE("A file another user controls is read only as a regular file: a FIFO never blocks the read", "[hardening]") {
  TempDir dir;
  auto script = dir.write("flow.ys", "synth\n");
  CHECK(util::read_regular_file(script) == std::optional<std::string>("synth\n"));
  // A FIFO with no writer: a plain open would wait for one forever (the test would hang).
  std::string fifo = dir.path + "/swapped.ys";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_FALSE(util::read_regular_file(fifo));
  CHECK_FALSE(util::read_regular_file(dir.path));  // a directory
  CHECK_FALSE(util::read_regular_file(dir.path + "/absent"));
}
