// run::launch and its companions against real processes (/bin/sh): what the tool is started
// with and what is known when it ends. The signal matrix and job control are in
// tests/e2e/test_signals.sh, where a real caller (a shell, tmux) is on the other side.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "run/exec_rules.hpp"
#include "run/launch.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

namespace {
run::Outcome sh(const std::string& script, const std::vector<std::string>& env = {"PATH=/usr/bin:/bin"},
                const std::function<void(const run::Outcome&)>& while_running = nullptr) {
  return run::launch("/bin/sh", {"sh", "-c", script}, env, while_running);
}
}  // namespace

TEST_CASE("Launch: the exit status, the time and the resource usage come back", "[launch]") {
  auto out = sh("i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 7");
  REQUIRE(out.started);
  CHECK(WIFEXITED(out.status));
  CHECK(WEXITSTATUS(out.status) == 7);
  CHECK(run::shell_status(out.status) == 7);
  CHECK(out.pid > 0);
  CHECK(out.wall_seconds > 0);
  CHECK(out.start_time > 1.7e9);
  CHECK(out.usage.ru_maxrss > 0);  // the tool's peak RSS, from wait4
  CHECK(out.usage.ru_utime.tv_sec + out.usage.ru_utime.tv_usec > 0);
}

TEST_CASE("Launch: the tool gets exactly the environment and argv given", "[launch]") {
  TempDir t;
  std::string file = t.path + "/seen";
  auto out = sh("printf '%s|%s|%s' \"$0\" \"$X\" \"${HOME-unset}\" > " + file, {"X=y z", "PATH=/bin"});
  REQUIRE(out.started);
  CHECK(run::shell_status(out.status) == 0);
  CHECK(util::read_file(file, 4096).value_or("") == "sh|y z|unset");
}

TEST_CASE("Launch: death by a signal is reported as the shell reports it", "[launch]") {
  auto out = sh("kill -TERM $$");
  REQUIRE(out.started);
  CHECK(WIFSIGNALED(out.status));
  CHECK(WTERMSIG(out.status) == SIGTERM);
  CHECK(run::shell_status(out.status) == 128 + SIGTERM);
}

TEST_CASE("Launch: a file that cannot be executed is not started, with the errno", "[launch]") {
  TempDir t;
  auto out = run::launch(t.path + "/absent", {"absent"}, {});
  CHECK_FALSE(out.started);
  CHECK(out.exec_errno == ENOENT);
  auto dir = run::launch(t.path, {"dir"}, {});
  CHECK_FALSE(dir.started);
  CHECK(dir.exec_errno == EACCES);
}

TEST_CASE("Launch: while_running is called once, with the tool's pid, while the tool is alive", "[launch]") {
  int calls = 0;
  bool alive = false;
  int seen_pid = 0;
  auto out = sh("sleep 0.2", {"PATH=/usr/bin:/bin"}, [&](const run::Outcome& started) {
    ++calls;
    seen_pid = started.pid;
    alive = ::kill(started.pid, 0) == 0;
  });
  CHECK(calls == 1);
  CHECK(alive);
  CHECK(seen_pid == out.pid);
}

TEST_CASE("Launch: exit_like ends the process as the tool ended", "[launch]") {
  for (int status : {0, 3, 255}) {
    pid_t pid = ::fork();
    if (pid == 0) run::exit_like(status << 8);  // an exit status as wait() encodes it
    int st = 0;
    REQUIRE(::waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == status);
  }
  pid_t pid = ::fork();
  if (pid == 0) run::exit_like(SIGUSR1);  // died of SIGUSR1
  int st = 0;
  REQUIRE(::waitpid(pid, &st, 0) == pid);
  CHECK(WIFSIGNALED(st));
  CHECK(WTERMSIG(st) == SIGUSR1);
}

TEST_CASE("A file the kernel will not run is run by /bin/sh, with execvp's argv", "[launch][transparency]") {
  // Issue 13 item 4: glibc's execvp on ENOEXEC runs /bin/sh FILE ARGS..., dropping argv[0].
  CHECK(run::shell_argv("/p/tool", {"tool", "a", "b c"}) == std::vector<std::string>{"/bin/sh", "/p/tool", "a", "b c"});
  CHECK(run::shell_argv("/p/tool", {"x"}) == std::vector<std::string>{"/bin/sh", "/p/tool"});
  TempDir t;
  std::string script = t.path + "/noshebang";
  util::write_file_atomic(script, "echo \"$0 $1\" > \"$2\"\nexit 7\n", 0755);
  auto out = run::launch(script, {"noshebang", "one", t.path + "/said"}, {"PATH=/usr/bin:/bin"});
  REQUIRE(out.started);
  CHECK(run::shell_status(out.status) == 7);
  CHECK(util::read_file(t.path + "/said") == script + " one\n");
}

TEST_CASE("Launch: edashim's own command line says edashim where argv[0] was, the arguments stay", "[launch]") {
  using namespace std::string_literals;
  std::vector<std::string> argv = {"/usr/bin/yosys", "-q", "-p", "synth"};
  size_t size = 15 + 3 + 3 + 6;  // the area main's argv occupied
  CHECK(run::renamed_arguments(argv, size) == "edashim\0\0\0\0\0\0\0\0-q\0-p\0synth\0"s);
  // A short argv[0] ("yosys"): the name is cut, not the arguments.
  CHECK(run::renamed_arguments({"yosys", "-q", "-p", "synth"}, 6 + 3 + 3 + 6) == "edash\0-q\0-p\0synth\0"s);
  CHECK(run::renamed_arguments({"ab"}, 3) == "ed\0"s);
  CHECK(run::renamed_arguments({"ab", "xyz"}, 5) == "ed\0x\0"s);  // an area smaller than argv says: cut at its end
}

TEST_CASE("Launch: valgrind's launcher and options are what comes before its client", "[launch]") {
  using V = std::vector<std::string>;
  CHECK(run::valgrind_prefix({"/usr/bin/valgrind.bin", "-q", "--leak-check=full", "yosys", "-q"}) ==
        V{"/usr/bin/valgrind.bin", "-q", "--leak-check=full"});
  CHECK(run::valgrind_prefix({"/usr/bin/valgrind.bin", "yosys"}) == V{"/usr/bin/valgrind.bin"});
  CHECK(run::valgrind_prefix({"/usr/bin/valgrind.bin", "-q"}).empty());  // no client: not understood
  CHECK(run::valgrind_prefix({}).empty());
}
