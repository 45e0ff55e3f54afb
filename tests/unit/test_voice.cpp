#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "util/voice.hpp"

namespace {
void on_signal(int) {}
}  // namespace

TEST_CASE("Voice: each line of a text under the command's name", "[voice]") {
  util::Voice voice("edashim report");
  CHECK(voice.lines("no runs match") == "edashim report: no runs match\n");
  CHECK(voice.lines("a\nb\n") == "edashim report: a\nedashim report: b\n");
  CHECK(voice.lines("a\n\nb") == "edashim report: a\nedashim report: \nedashim report: b\n");
  CHECK(voice.lines("") == "edashim report: \n");
  CHECK(voice.fail("x", 2) == 2);
  CHECK(voice.who() == "edashim report");
}

TEST_CASE("Voice: one that keeps what it says, for a test to read", "[voice]") {
  std::string kept;
  util::Voice voice("edashim bench", &kept);
  voice.say("CSV written to r.csv");
  voice("a", 1, "\nb");
  voice.say_with("explain: which tool?", "  e.g. edashim explain yosys");
  CHECK(kept == "edashim bench: CSV written to r.csv\nedashim bench: a1\nedashim bench: b\n"
                "edashim bench: explain: which tool?\n  e.g. edashim explain yosys\n");
}

TEST_CASE("Voice: a write a signal cuts short goes on where it stopped, not from the start", "[voice]") {
  std::string text;
  for (int i = 0; text.size() < (1u << 20); ++i) text += "line " + std::to_string(i) + "\n";
  int p[2];
  REQUIRE(::pipe(p) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;  // without SA_RESTART: the write returns what it wrote so far
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(SIGUSR1, &sa, nullptr);
    ::dup2(p[1], STDERR_FILENO);
    ::close(p[0]);
    ::close(p[1]);
    util::Voice("edashim").say(text);
    ::_exit(0);
  }
  ::close(p[1]);
  // The pipe full: the child is in its write, part of the text taken. Then the signal.
  int cap = ::fcntl(p[0], F_GETPIPE_SZ), queued = 0;
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (::ioctl(p[0], FIONREAD, &queued) == 0 && queued < cap && std::chrono::steady_clock::now() < give_up)
    ::usleep(1000);
  REQUIRE(queued == cap);
  ::kill(child, SIGUSR1);
  std::string got;
  char buf[65536];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno != EINTR) break;
    if (n > 0) got.append(buf, size_t(n));
  }
  ::close(p[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(got.size() == util::Voice("edashim").lines(text).size());
  CHECK(got == util::Voice("edashim").lines(text));
}
