// run::relay::route, the rule for where a signal delivered to edashim goes (pure), and
// descends_from against real processes; run::core_lands_in_cwd (pure).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "run/death.hpp"
#include "run/relay.hpp"

using run::relay::Delivery;
using run::relay::Route;

namespace {
Delivery sent(int sig) {
  Delivery d;
  d.sig = sig;
  d.code = SI_USER;
  d.tool_running = true;
  return d;
}
}  // namespace

TEST_CASE("Relay: a signal from elsewhere goes to the tool", "[relay]") {
  CHECK(run::relay::route(sent(SIGUSR1)) == Route::to_tool);
  auto queued = sent(SIGRTMIN + 1);
  queued.code = SI_QUEUE;
  CHECK(run::relay::route(queued) == Route::to_tool);
}

TEST_CASE("Relay: a signal from the tool's side goes up to edashim's parent", "[relay]") {
  auto d = sent(SIGUSR1);
  d.from_tool_side = true;
  CHECK(run::relay::route(d) == Route::to_parent);
  // From a sender in our own group it may be the tool's `kill 0`, which reached everyone it
  // reaches directly; passed up it would reach an interactive shell outside the job (issue 25).
  d.shared_group = true;
  d.sender_in_our_group = true;
  CHECK(run::relay::route(d) == Route::drop);
  d.shared_group = false;
  CHECK(run::relay::route(d) == Route::drop);
  d.sender_in_our_group = false;  // a descendant in a group of its own, or edashim stepped aside
  CHECK(run::relay::route(d) == Route::to_parent);
}

TEST_CASE("Relay: the terminal's signals reach a tool that left the job's group", "[relay]") {
  auto tty = sent(SIGINT);
  tty.code = SI_KERNEL;
  tty.shared_group = false;  // asked at delivery: the tool called setpgid(0,0) or setsid()
  CHECK(run::relay::route(tty) == Route::to_tool);
}

TEST_CASE("Relay: nothing is relayed with no tool, from edashim itself, or about its child", "[relay]") {
  auto d = sent(SIGTERM);
  d.tool_running = false;
  CHECK(run::relay::route(d) == Route::drop);
  auto self = sent(SIGPIPE);
  self.from_self = true;
  CHECK(run::relay::route(self) == Route::drop);
  auto child = sent(SIGCHLD);
  child.code = CLD_EXITED;
  CHECK(run::relay::route(child) == Route::drop);
  auto sent_chld = sent(SIGCHLD);  // `kill -CHLD` by a process is a message for the tool
  CHECK(run::relay::route(sent_chld) == Route::to_tool);
}

TEST_CASE("Relay: in a terminal job, what the terminal or the shell sent to the group is not relayed", "[relay]") {
  auto tty = sent(SIGINT);
  tty.code = SI_KERNEL;
  tty.shared_group = true;
  CHECK(run::relay::route(tty) == Route::drop);
  auto cont = sent(SIGCONT);
  cont.shared_group = true;
  CHECK(run::relay::route(cont) == Route::drop);
  cont.shared_group = false;  // without a terminal the tool is not in our group: relayed
  CHECK(run::relay::route(cont) == Route::to_tool);
}

TEST_CASE("Relay: descends_from follows the parent chain", "[relay]") {
  pid_t self = ::getpid();
  CHECK(run::relay::descends_from(self, self));
  CHECK(run::relay::descends_from(self, ::getppid()));
  pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  CHECK(run::relay::descends_from(child, self));
  CHECK_FALSE(run::relay::descends_from(self, child));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  CHECK_FALSE(run::relay::descends_from(child, self));  // gone
}

TEST_CASE("Death: a core lands in the working directory only for a relative core_pattern", "[death]") {
  CHECK(run::core_lands_in_cwd("core\n"));
  CHECK(run::core_lands_in_cwd("core.%e.%p"));
  CHECK_FALSE(run::core_lands_in_cwd("|/lib/systemd/systemd-coredump %P %u %g %s %t 9223372036854775808 %h\n"));
  CHECK_FALSE(run::core_lands_in_cwd("/var/crash/core.%e.%p"));
  CHECK_FALSE(run::core_lands_in_cwd(""));
}
