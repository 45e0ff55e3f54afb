// Issue 28 item 6: a broken file is not applied (and a run logs why it ran plain), a project
// file the user chose to ignore is skipped without a word, and the pure parts of "warn once
// per session".
#include <catch2/catch.hpp>
#include <unistd.h>

#include "config/load.hpp"
#include "config/trust.hpp"
#include "config_fixture.hpp"
#include "pipeline/run_line.hpp"
#include "pipeline/warn_once.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

TEST_CASE("Config: a file with an error is not applied at all, so explain shows none of its settings", "[config]") {
  TempDir t;
  t.write("shipped/defaults/all.toml", "allocator = \"system\"\nscratch = false\n");
  std::string user = t.write("user/config.toml", "allocator = \"jemalloc\"\nscratch = true\nscrach = 1\n");
  auto loaded = config::load(request_in(t));
  REQUIRE(loaded.has_errors());
  CHECK(loaded.settings.allocator.value == "system");
  CHECK(loaded.settings.allocator.origin.file != user);
  CHECK(loaded.settings.scratch.value == false);
  bool listed = false;
  for (const auto& f : loaded.files)
    if (f.path == user) {
      listed = true;
      CHECK_FALSE(f.used);
      CHECK(f.note.find("it has errors") != std::string::npos);
    }
  CHECK(listed);
  // A file without errors still applies as before.
  t.write("user/config.toml", "allocator = \"jemalloc\"\nscratch = true\n");
  loaded = config::load(request_in(t));
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.allocator.value == "jemalloc");
}

TEST_CASE("Config: a selected [profile.X] section with an error is not applied either", "[config]") {
  TempDir t;
  t.write("shipped/defaults/all.toml", "allocator = \"system\"\n");
  t.write("user/config.toml", "[profile.fast]\nallocator = \"jemalloc\"\nscrach = 1\n");
  auto r = request_in(t);
  r.chosen.profile = "fast";
  auto loaded = config::load(r);
  REQUIRE(loaded.has_errors());
  CHECK(loaded.settings.allocator.value == "system");
}

TEST_CASE("Config: an untrusted project file's mistakes stay warnings, and its safe settings apply", "[config][trust]") {
  TempDir t;
  t.write("proj/.edashim.toml", "allocator = \"jemalloc\"\nscrach = 1\n");
  config::TrustStore store(t.path + "/state/trusted");
  auto loaded = config::load(request_in(t, "yosys", &store));
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.allocator.value == "jemalloc");
}

TEST_CASE("Config: a project file the user chose to ignore is skipped without a word, until it changes", "[config][trust]") {
  TempDir t;
  std::string body = "allocator = \"jemalloc\"\n[env]\nX = \"1\"\n";
  std::string file = t.write("proj/.edashim.toml", body);
  config::TrustStore trusted(t.path + "/state/trusted");
  config::TrustStore ignored(config::ignore_store_path(trusted.path()), config::Decision::ignored);
  auto r = request_in(t, "yosys", &trusted);
  r.ignore = &ignored;
  auto loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "jemalloc");  // undecided: its safe settings, with a warning
  CHECK(loaded.untrusted_files.size() == 1);

  REQUIRE(ignored.trust(file, body).ok());
  loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "system");
  CHECK(loaded.untrusted_files.empty());
  CHECK(loaded.problems.empty());
  REQUIRE(loaded.ignored_by_choice.size() == 1);
  CHECK(loaded.ignored_by_choice[0] == file);

  t.write("proj/.edashim.toml", body + "# edited\n");
  loaded = config::load(r);
  CHECK(loaded.ignored_by_choice.empty());
  CHECK(loaded.untrusted_files.size() == 1);
}

TEST_CASE("Trust store: the ignored store has its own first line, and removing is idempotent", "[trust]") {
  std::vector<config::TrustStore::Entry> entries{{std::string(64, 'a'), "/p/.edashim.toml"}};
  std::string text = config::TrustStore::render(entries, config::Decision::ignored);
  CHECK(text.rfind("edashim-ignored 1\n", 0) == 0);
  auto back = config::TrustStore::parse(text, config::Decision::ignored);
  REQUIRE(back.ok());
  CHECK(back->size() == 1);
  // Neither store can be taken for the other.
  CHECK_FALSE(config::TrustStore::parse(text, config::Decision::trusted).ok());
  CHECK_FALSE(config::TrustStore::parse(config::TrustStore::render(entries), config::Decision::ignored).ok());

  TempDir t;
  config::TrustStore ignored(t.path + "/state/ignored", config::Decision::ignored);
  auto none = ignored.remove("/p/.edashim.toml");
  REQUIRE(none.ok());
  CHECK_FALSE(none->was_there);
  CHECK_FALSE(util::exists(ignored.path()));  // nothing recorded: no store made for it
  REQUIRE(ignored.trust("/p/.edashim.toml", "x").ok());
  auto one = ignored.remove("/p/.edashim.toml");
  REQUIRE(one.ok());
  CHECK(one->was_there);
  CHECK_FALSE(ignored.holds("/p/.edashim.toml", "x"));
}

TEST_CASE("Log: config_error names the first error's file and line, and how many more", "[log]") {
  std::vector<config::Problem> problems{{"/p/a.toml", 3, 1, "a warning", false},
                                        {"/u/config.toml", 3, 1, "unknown key 'scrach'; did you mean 'scratch'?", true},
                                        {"/u/config.toml", 5, 0, "second", true}};
  CHECK(pipeline::config_error_text(problems) ==
        "/u/config.toml:3:1: unknown key 'scrach'; did you mean 'scratch'? (and 1 more error: edashim explain shows them)");
  problems.pop_back();
  CHECK(pipeline::config_error_text(problems) == "/u/config.toml:3:1: unknown key 'scrach'; did you mean 'scratch'?");
  problems.pop_back();
  CHECK(pipeline::config_error_text(problems).empty());
}

TEST_CASE("Warn once: the session is named by its id and its leader's start time", "[warn_once]") {
  // /proc/SID/stat: the command name may hold spaces and parentheses; the start time is field 22.
  std::string stat = "4242 (my (odd) shell) S 1 4242 4242 34816 4300 4194560 2000 0 0 0 5 3 0 0 20 0 1 0 987654 1000 200";
  CHECK(pipeline::session_name(4242, stat) == "4242-987654");
  CHECK(pipeline::session_name(4242, "4242 (sh) S 1 2").empty());  // cut short: no session
  CHECK(pipeline::session_name(0, stat).empty());
  CHECK(pipeline::session_name(4242, "garbage").empty());
}

TEST_CASE("Warn once: an ancestor's parent is read past a command name with parentheses", "[warn_once]") {
  CHECK(pipeline::parent_in_stat("4300 (make (x) y) S 4242 4300 4242 0 -1") == 4242);
  CHECK(pipeline::parent_in_stat("1 (init) S 0 1 1 0 -1") == 0);  // the top of a pid namespace
  CHECK(pipeline::parent_in_stat("1 (init) S") == 0);
  CHECK(pipeline::parent_in_stat("garbage") == 0);
  CHECK(pipeline::parent_in_stat("7 (x) S 99999999999 7") == 0);  // no pid is that long
}

TEST_CASE("Warn once: a marker's name is hex, and differs for another file, version or session", "[warn_once]") {
  auto a = pipeline::warning_marker_name("/p/.edashim.toml", "1:2:3", "10-20");
  CHECK(a.size() == 32);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != pipeline::warning_marker_name("/q/.edashim.toml", "1:2:3", "10-20"));
  CHECK(a != pipeline::warning_marker_name("/p/.edashim.toml", "1:2:4", "10-20"));
  CHECK(a != pipeline::warning_marker_name("/p/.edashim.toml", "1:2:3", "10-21"));
  CHECK(a == pipeline::warning_marker_name("/p/.edashim.toml", "1:2:3", "10-20"));
}

TEST_CASE("Warn once: the first call in this session says yes, the next no, and an edit says yes again", "[warn_once]") {
  TempDir t;
  std::string file = t.write("proj/.edashim.toml", "allocator = \"jemalloc\"\n");
  std::string dir = t.path + "/state/warned";
  // Named here whether or not the session's leader is in sight (CI containers hide it).
  REQUIRE_FALSE(pipeline::this_session().empty());
  auto first = [&](const std::string& flow) { return pipeline::first_in_session_at(dir, file, pipeline::file_version(file), flow); };
  CHECK(first("flow1") == std::optional<bool>(true));
  CHECK(first("flow2") == std::optional<bool>(false));  // the session, not the flow, decides here
  t.write("proj/.edashim.toml", "allocator = \"system\"\n");  // another size: another version, whatever the clock
  CHECK(first("flow2") == std::optional<bool>(true));
}
