#include <catch2/catch.hpp>

#include "util/voice.hpp"

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
