// pipeline::run_tool as a whole, in a child process (it ends the process the way the tool ended),
// and the log line it writes read back by the report's reader: one schema, both sides.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "pipeline/run_line.hpp"
#include "pipeline/run_tool.hpp"
#include "runlog/read.hpp"
#include "runlog/schema.hpp"
#include "temp_dir.hpp"
#include "util/strings.hpp"

namespace {

struct Run {
  int status = -1;  // wait status of the child that called run_tool
  std::string log;  // the run log's contents
  std::string err;  // what edashim said on stderr
};

// Calls run_tool for `tool` in a child with a private HOME, PATH and log; `env` adds variables.
Run run_in_child(const TempDir& t, const std::string& tool, const std::vector<std::string>& args,
                 const std::vector<std::string>& env = {}) {
  Run r;
  std::string log = t.path + "/runs.jsonl", err = t.path + "/stderr";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::clearenv();
    ::setenv("HOME", t.path.c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", (t.path + "/config").c_str(), 1);
    ::setenv("XDG_STATE_HOME", (t.path + "/state").c_str(), 1);
    ::setenv("XDG_CACHE_HOME", (t.path + "/cache").c_str(), 1);
    ::setenv("PATH", (t.path + "/bin:/usr/bin:/bin").c_str(), 1);
    ::setenv("EDASHIM_LOG", log.c_str(), 1);
    ::unsetenv("EDASHIM_NOTICES");  // the default route: on stderr only at a terminal
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    if (::chdir(t.path.c_str()) != 0) ::_exit(99);
    if (!::freopen(err.c_str(), "w", stderr)) ::_exit(98);
    pipeline::Invocation inv;
    inv.tool = tool;
    inv.argv = {tool};
    inv.argv.insert(inv.argv.end(), args.begin(), args.end());
    pipeline::select_from(inv);
    ::_exit(pipeline::run_tool(inv));
  }
  ::waitpid(pid, &r.status, 0);
  r.log = util::read_file(log, 1 << 20).value_or("");
  r.err = util::read_file(err, 1 << 20).value_or("");
  return r;
}

void script(const TempDir& t, const std::string& name, const std::string& body) {
  t.write("bin/" + name, "#!/bin/sh\n" + body + "\n");
  ::chmod((t.path + "/bin/" + name).c_str(), 0755);
}

}  // namespace

TEST_CASE("run_tool: the tool's status becomes edashim's, and one log line records the run", "[run_tool]") {
  TempDir t;
  script(t, "mytool", "exit 3");
  // Supervised: without the probe library (none beside the unit tests), a tool run in place
  // cannot tell its end; the launcher waits for it.
  auto r = run_in_child(t, "mytool", {"a b", "c"}, {"EDASHIM_SUPERVISE=1"});
  REQUIRE(WIFEXITED(r.status));
  CHECK(WEXITSTATUS(r.status) == 3);
  auto lines = util::split(r.log, '\n');
  REQUIRE(lines.size() == 2);  // one line and the final newline
  runlog::RunRecord rec;
  REQUIRE(runlog::parse_run_line(lines[0], rec));
  CHECK(rec.tool == "mytool");
  CHECK(rec.argv == std::vector<std::string>{"mytool", "a b", "c"});
  CHECK(rec.exit_code == std::optional<long>(3));
  CHECK_FALSE(rec.signal);
  CHECK(rec.status == std::optional<long>(3));
  CHECK(rec.allocator_requested == "system");
  CHECK(rec.cwd == t.path);
  CHECK(rec.wall_s > 0);
}

TEST_CASE("run_tool: a tool killed by a signal kills edashim with the same signal", "[run_tool]") {
  TempDir t;
  script(t, "mytool", "kill -USR1 $$");
  auto r = run_in_child(t, "mytool", {}, {"EDASHIM_SUPERVISE=1"});
  REQUIRE(WIFSIGNALED(r.status));
  CHECK(WTERMSIG(r.status) == SIGUSR1);
  runlog::RunRecord rec;
  REQUIRE(runlog::parse_run_line(util::split(r.log, '\n')[0], rec));
  CHECK(rec.signal == std::optional<long>(SIGUSR1));
  CHECK(rec.status == std::optional<long>(128 + SIGUSR1));
}

TEST_CASE("run_tool: in place, a tool that cannot tell its end has its line at once, the end untold", "[run_tool]") {
  TempDir t;
  script(t, "mytool", "exit 3");
  auto r = run_in_child(t, "mytool", {});
  CHECK(WEXITSTATUS(r.status) == 3);
  runlog::RunRecord rec;
  REQUIRE(runlog::parse_run_line(r.log, rec));
  CHECK(rec.tool == "mytool");
  CHECK_FALSE(rec.status);
  CHECK(rec.untimed);
  CHECK(rec.ended == std::string(runlog::key::kEndedUntold));
}

TEST_CASE("run_tool: EDASHIM=off runs the tool untouched and logs nothing", "[run_tool]") {
  TempDir t;
  script(t, "mytool", "echo \"${LD_PRELOAD-none}\" > \"$HOME/seen\"; exit 4");
  t.write("config/edashim/config.toml", "allocator = \"jemalloc\"\n");
  auto r = run_in_child(t, "mytool", {}, {"EDASHIM=off"});
  CHECK(WEXITSTATUS(r.status) == 4);
  CHECK(r.log.empty());
  CHECK(util::read_file(t.path + "/seen", 100).value_or("") == "none\n");
}

TEST_CASE("run_tool: a broken configuration runs the plain tool and says how to bypass", "[run_tool]") {
  TempDir t;
  script(t, "mytool", "exit 5");
  t.write("config/edashim/config.toml", "allocator = \n");
  auto r = run_in_child(t, "mytool", {});
  CHECK(WEXITSTATUS(r.status) == 5);
  // Not a terminal: the tool's stderr carries nothing of edashim's; the line keeps the words.
  CHECK(r.err.empty());
  // The plain tool, but not an invisible run: one log line says why, without times.
  runlog::RunRecord rec;
  REQUIRE(runlog::parse_run_line(r.log, rec));
  REQUIRE(rec.notices.size() == 1);
  CHECK(rec.notices[0].find(t.path + "/config/edashim/config.toml:1") != std::string::npos);
  CHECK(rec.notices[0].find("EDASHIM=off") != std::string::npos);
  CHECK(rec.config_error.rfind(t.path + "/config/edashim/config.toml:1:", 0) == 0);
  CHECK(rec.untimed);
  CHECK(rec.arm == "system");
  CHECK(rec.tool == "mytool");
}

TEST_CASE("run_tool: a tool that is not found gives 127 and names the directories searched", "[run_tool]") {
  TempDir t;
  auto r = run_in_child(t, "no-such-tool", {});
  CHECK(WEXITSTATUS(r.status) == 127);
  CHECK(r.err.find(t.path + "/bin") != std::string::npos);
}

TEST_CASE("Log line: every field the writer sets is read back by the report's reader", "[run_tool][log]") {
  pipeline::Plan plan;
  plan.inv.tool = "yosys";
  plan.inv.argv = {"yosys", "-q", "x\ty"};
  plan.inv.chosen.profile = "fast";
  plan.allocator = "jemalloc";
  plan.tool_path = "/bin/true";
  pipeline::RunSetup setup;
  run::Outcome out;
  out.started = true;
  out.start_time = 1.8e9;
  out.pid = 42;
  out.wall_seconds = 1.25;
  out.usage.ru_utime = {2, 500000};
  out.usage.ru_stime = {0, 250000};
  out.usage.ru_maxrss = 12345;
  out.status = 9 << 8;  // exit 9
  util::JsonWriter j;
  pipeline::write_start(j, plan, setup, out);
  pipeline::write_end(j, plan, setup, out, "");
  runlog::RunRecord r;
  REQUIRE(runlog::parse_run_line(j.str(), r));
  CHECK(r.tool == "yosys");
  CHECK(r.argv == plan.inv.argv);
  CHECK(r.profile == "fast");
  CHECK(r.allocator_requested == "jemalloc");
  CHECK(r.start_unix == 1.8e9);
  CHECK(r.wall_s == 1.25);
  CHECK(r.user_s == 2.5);
  CHECK(r.sys_s == 0.25);
  CHECK(r.max_rss_kb == 12345);
  CHECK(r.exit_code == std::optional<long>(9));
  CHECK(r.status == std::optional<long>(9));
  CHECK_FALSE(r.signal);
  CHECK(r.allocator_verified == std::optional<bool>(false));
}
