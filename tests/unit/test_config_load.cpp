#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config_file.hpp"
#include "commands/profiles_cmd.hpp"
#include "config/load.hpp"
#include "config_fixture.hpp"
#include "temp_dir.hpp"

TEST_CASE("Layers: nearer files override farther ones, per-tool sections override the file's top level", "[config]") {
  TempDir t;
  t.write("shipped/defaults/all.toml", "allocator = \"system\"\nprobe = true\n");
  t.write("shipped/defaults/yosys.toml", "allocator = \"jemalloc\"\nscratch = true\n");
  t.write("user/config.toml", "locale = \"C.UTF-8\"\n[tool.yosys]\nallocator = \"tcmalloc\"\n");
  t.write("proj/.edashim.toml", "allocator = \"mimalloc\"\n");
  t.write("proj/sub/.edashim.toml", "[tool.yosys]\nscratch = false\n[tool.vpr]\nallocator = \"jemalloc\"\n");
  auto r = request_in(t);
  auto loaded = config::load(r);
  INFO((loaded.problems.empty() ? "" : loaded.problems[0].str()));
  REQUIRE_FALSE(loaded.has_errors());
  const auto& s = loaded.settings;
  CHECK(s.allocator.value == "mimalloc");
  CHECK(s.allocator.origin.file == t.path + "/proj/.edashim.toml");
  CHECK(s.allocator.origin.line == 1);
  CHECK(s.scratch.value == false);
  CHECK(s.scratch.origin.file == t.path + "/proj/sub/.edashim.toml");
  CHECK(s.locale.value == "C.UTF-8");
  CHECK(s.probe.value == true);
  REQUIRE(loaded.files.size() == 5);
  CHECK(loaded.files[0].kind == config::FileKind::shipped);
  CHECK(loaded.files[4].path == t.path + "/proj/sub/.edashim.toml");
}

TEST_CASE("Another tool's section does not apply", "[config]") {
  TempDir t;
  t.write("user/config.toml", "[tool.vpr]\nallocator = \"tcmalloc\"\n");
  auto loaded = config::load(request_in(t, "yosys"));
  CHECK(loaded.settings.allocator.value == "system");
}

TEST_CASE("A named profile wins over config files, and the environment's allocator over both", "[config]") {
  TempDir t;
  t.write("shipped/named/baseline.toml", "allocator = \"system\"\nscratch = false\n");
  t.write("proj/.edashim.toml", "allocator = \"mimalloc\"\nscratch = true\n[profile.fast]\nallocator = \"jemalloc\"\n");
  auto r = request_in(t);
  r.chosen.profile = "baseline";
  auto loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "system");
  CHECK(loaded.settings.scratch.value == false);

  r.chosen.profile = "fast";
  loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "jemalloc");
  CHECK(loaded.settings.scratch.value == true);

  r.chosen.allocator = "tcmalloc";
  r.chosen.allocator_origin = "EDASHIM_ALLOCATOR";
  loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "tcmalloc");
  CHECK(loaded.settings.allocator.origin.str() == "EDASHIM_ALLOCATOR");
}

TEST_CASE("An unknown profile name is an error naming the profile", "[config]") {
  TempDir t;
  auto r = request_in(t);
  r.chosen.profile = "fastest";
  r.chosen.profile_origin = "EDASHIM_PROFILE";
  auto loaded = config::load(r);
  CHECK(loaded.has_errors());
  CHECK(mentions(loaded, "EDASHIM_PROFILE: error: no profile named 'fastest'"));
  // A typo of a profile there is: the nearest name (a shipped profile, here the user's own).
  std::filesystem::create_directories(r.user_profiles_dir);
  std::ofstream(r.user_profiles_dir + "/fastest.toml") << "allocator = \"jemalloc\"\n";
  r.chosen.profile = "fastets";
  CHECK(mentions(config::load(r), "no profile named 'fastets'; did you mean 'fastest'?"));
}

TEST_CASE("A profile given as a path is loaded as a layer", "[config]") {
  TempDir t;
  auto file = t.write("mine.toml", "allocator = \"tbbmalloc\"\n");
  auto r = request_in(t);
  r.chosen.profile = file;
  auto loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "tbbmalloc");
}

TEST_CASE("Syntax errors give file, line and column", "[config]") {
  TempDir t;
  t.write("user/config.toml", "allocator = \"jemalloc\"\nscratch = tru\n");
  auto loaded = config::load(request_in(t));
  REQUIRE(loaded.has_errors());
  CHECK(loaded.problems[0].file == t.path + "/user/config.toml");
  CHECK(loaded.problems[0].line == 2);
  CHECK(loaded.problems[0].column > 0);
  CHECK(loaded.problems[0].message.find("TOML syntax error") == 0);
}

TEST_CASE("Unknown keys suggest the nearest valid one", "[config]") {
  TempDir t;
  t.write("user/config.toml", "\n\nalocator = \"jemalloc\"\n");
  auto loaded = config::load(request_in(t));
  REQUIRE(loaded.has_errors());
  CHECK(loaded.problems[0].line == 3);
  CHECK(loaded.problems[0].message.find("unknown key 'alocator'; did you mean 'allocator'?") == 0);
}

TEST_CASE("Wrong types and unknown allocators are errors that say what would be right", "[config]") {
  TempDir t;
  t.write("user/config.toml", "scratch = \"yes\"\nallocator = \"jemaloc\"\n");
  auto loaded = config::load(request_in(t));
  CHECK(mentions(loaded, ":1:"));
  CHECK(mentions(loaded, "'scratch' must be true, false or \"override\""));
  CHECK(mentions(loaded, "unknown allocator 'jemaloc'; did you mean 'jemalloc'?"));
}

TEST_CASE("Untrusted project files cannot set library paths, env, tool path or log", "[config][trust]") {
  TempDir t;
  std::string body =
      "allocator = \"/tmp/evil.so\"\nlocale = \"C\"\n[env]\nLD_AUDIT = \"/tmp/evil.so\"\n"
      "[tool.yosys]\npath = \"/tmp/evil\"\n";
  auto file = t.write("proj/.edashim.toml", body);
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t);
  r.trust = &store;
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.allocator.value == "system");
  CHECK(loaded.settings.env.empty());
  CHECK(loaded.settings.tool_path.value.empty());
  CHECK(loaded.settings.locale.value == "C");  // allowed from anywhere
  REQUIRE(loaded.untrusted_files.size() == 1);
  CHECK(loaded.untrusted_files[0] == file);

  REQUIRE(store.trust(file, body).ok());
  loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "/tmp/evil.so");
  CHECK(loaded.settings.env.at("LD_AUDIT").value == "/tmp/evil.so");
  CHECK(loaded.settings.tool_path.value == "/tmp/evil");
  CHECK(loaded.untrusted_files.empty());

  // Any edit revokes the trust.
  t.write("proj/.edashim.toml", body + "# harmless?\n");
  loaded = config::load(r);
  CHECK(loaded.settings.allocator.value == "system");
}

TEST_CASE("A group- or world-writable project file is refused", "[config][trust]") {
  TempDir t;
  auto file = t.write("proj/.edashim.toml", "allocator = \"mimalloc\"\n");
  ::chmod(file.c_str(), 0666);
  auto loaded = config::load(request_in(t));
  CHECK(loaded.settings.allocator.value == "system");
  CHECK(mentions(loaded, "is writable by others"));
}

TEST_CASE("[env] sets strings and unsets with false", "[config]") {
  TempDir t;
  t.write("user/config.toml", "[env]\nFOO = \"bar\"\nGONE = false\n");
  auto loaded = config::load(request_in(t));
  CHECK(loaded.settings.env.at("FOO").value == "bar");
  CHECK_FALSE(loaded.settings.env.at("GONE").value.has_value());
  // A file with an error is not applied at all (the run is plain until it is fixed).
  t.write("user/config.toml", "[env]\nFOO = \"bar\"\nGONE = false\nBAD = 3\n");
  loaded = config::load(request_in(t));
  CHECK(mentions(loaded, "[env] BAD must be a string, or false to unset it"));
  // edashim's own variables (found by fuzz_environment: an unset __EDASHIM_SCRATCH came back).
  t.write("user/config.toml", "[env]\n__EDASHIM_SCRATCH = false\n");
  loaded = config::load(request_in(t));
  CHECK(mentions(loaded, "[env] __EDASHIM_SCRATCH: names beginning __EDASHIM_ are edashim's own, set for each run; remove the line"));
  CHECK(loaded.settings.env.empty());
}

TEST_CASE("project_files lists .edashim.toml from the root down to the cwd", "[config]") {
  TempDir t;
  t.write("a/.edashim.toml", "");
  t.write("a/b/c/.edashim.toml", "");
  util::make_dirs(t.path + "/a/b/c/d");
  auto files = config::project_files(t.path + "/a/b/c/d");
  REQUIRE(files.size() >= 2);
  CHECK(files[files.size() - 2] == t.path + "/a/.edashim.toml");
  CHECK(files.back() == t.path + "/a/b/c/.edashim.toml");
  CHECK(config::project_files("relative/path").empty());
}

TEST_CASE("Comments are dropped before parsing without touching a '#' inside a string or moving lines", "[config]") {
  TempDir t;
  t.write("shipped/defaults/all.toml",
          "# a comment line\n"
          "scratch = true   # trailing, no quotes on the line\n"
          "  # indented comment\n"
          "[env]\n"
          "QUOTED = \"C#1\"  # a quote on the line: left to the parser\n"
          "MARK = 'x # y'\n");
  auto loaded = config::load(request_in(t));
  CHECK(loaded.settings.scratch.value == true);
  INFO((loaded.problems.empty() ? "" : loaded.problems[0].str()));
  CHECK(loaded.settings.env.at("QUOTED").value == std::optional<std::string>("C#1"));
  auto mark = loaded.settings.env.find("MARK");
  REQUIRE(mark != loaded.settings.env.end());
  CHECK(mark->second.value == std::optional<std::string>("x # y"));
  CHECK_FALSE(loaded.has_errors());

  t.write("shipped/defaults/all.toml", "# one\n\n  # three\nscratch = true # four\nbad = = 1 # five\n");
  auto broken = config::load(request_in(t));
  REQUIRE(broken.has_errors());
  CHECK(broken.problems[0].line == 5);
}

// Issue 12 item 3: a .edashim.toml that is a link to a trusted file elsewhere was trusted at
// its target, so a cloned repository could borrow that file's [env] and path.
TEST_CASE("Config: trust belongs to the path where the file was found, not a link's target", "[config][trust]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  auto trusted = t.write("mine/.edashim.toml", "[env]\nSECRET = \"1\"\n");
  REQUIRE(store.trust(config::trust_key(trusted), "[env]\nSECRET = \"1\"\n").ok());
  REQUIRE(::symlink(trusted.c_str(), (t.path + "/proj/.edashim.toml").c_str()) == 0);
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.settings.env.count("SECRET"));
  REQUIRE(loaded.untrusted_files.size() == 1);
  CHECK(loaded.untrusted_files[0] == t.path + "/proj/.edashim.toml");
  // Trusted where the user trusts the link, it applies there.
  REQUIRE(store.trust(config::trust_key(t.path + "/proj/.edashim.toml"), "[env]\nSECRET = \"1\"\n").ok());
  loaded = config::load(r);
  CHECK(loaded.settings.env.count("SECRET"));
}

// Issue 12 item 5: a FIFO (or another non-regular file) on the walk made every run below it
// run plain; it is skipped with a word and the rest of the configuration applies.
TEST_CASE("Config: a project file that is not a regular file is skipped, the rest applies", "[config][hardening]") {
  TempDir t;
  auto r = request_in(t);
  REQUIRE(::mkfifo((t.path + "/proj/.edashim.toml").c_str(), 0644) == 0);
  t.write("proj/sub/.edashim.toml", "locale = \"C\"\n");
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.locale.value == "C");
  CHECK(mentions(loaded, t.path + "/proj/.edashim.toml: warning: skipped: " + t.path + "/proj/.edashim.toml is not a regular file"));
  ::unlink((t.path + "/proj/.edashim.toml").c_str());
  REQUIRE(::mkdir((t.path + "/proj/.edashim.toml").c_str(), 0755) == 0);
  loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.locale.value == "C");
}

// Issue 12 item 6: explicit library directories come only from trusted sources.
TEST_CASE("Config: library_dirs is a list of absolute directories, restricted in untrusted project files", "[config][trust]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  t.write("user/config.toml", "library_dirs = [\"/opt/jemalloc/lib\", \"/opt/mi\"]\n");
  auto loaded = config::load(r);
  REQUIRE_FALSE(loaded.has_errors());
  CHECK(loaded.settings.library_dirs.value == std::vector<std::string>{"/opt/jemalloc/lib", "/opt/mi"});
  t.write("user/config.toml", "library_dirs = [\"lib\"]\n");
  loaded = config::load(r);
  CHECK(mentions(loaded, "config.toml:1:16: error: 'library_dirs' must be a list of absolute directories"));
  t.write("user/config.toml", "");
  auto project = t.write("proj/.edashim.toml", "library_dirs = [\"/evil\"]\n");
  loaded = config::load(r);
  CHECK(loaded.settings.library_dirs.value.empty());
  REQUIRE(loaded.ignored.count(project));
  REQUIRE(loaded.ignored.at(project).size() == 1);
  CHECK(loaded.ignored.at(project)[0].rfind("library_dirs (", 0) == 0);
}

TEST_CASE("scratch = \"override\" and scratch_min_free_percent are read and checked (issue 12 item 11)", "[config]") {
  TempDir t;
  t.write("user/config.toml", "scratch = \"override\"\nscratch_min_free_percent = 2.5\n");
  auto loaded = config::load(request_in(t));
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.scratch.value);
  CHECK(loaded.settings.scratch_override.value);
  CHECK(loaded.settings.scratch_min_free_percent.value == 2.5);
  // A nearer layer's plain true keeps the user's TMPDIR again.
  t.write("proj/.edashim.toml", "scratch = true\n");
  loaded = config::load(request_in(t));
  CHECK(loaded.settings.scratch.value);
  CHECK_FALSE(loaded.settings.scratch_override.value);
  CHECK(config::Settings{}.scratch_min_free_percent.value == 10);  // the default: 10 % of RAM
  t.write("user/config.toml", "scratch = \"always\"\nscratch_min_free_percent = 101\n");
  loaded = config::load(request_in(t));
  CHECK(mentions(loaded, "'scratch' must be true, false or \"override\""));
  CHECK(mentions(loaded, "'scratch_min_free_percent' must be a share of RAM between 0 and 100"));
  t.write("user/config.toml", "scratch_min_free_mb = 9223372036854775807\n");  // would overflow in bytes
  loaded = config::load(request_in(t));
  CHECK(mentions(loaded, "'scratch_min_free_mb' must be a whole number of MiB between 0 and 1073741824"));
}

TEST_CASE("An untrusted project file cannot say scratch = \"override\"", "[config][trust]") {
  TempDir t;
  t.write("proj/.edashim.toml", "scratch = \"override\"\n");
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t);
  r.trust = &store;
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK_FALSE(loaded.settings.scratch_override.value);
  CHECK(loaded.untrusted_files.size() == 1);
}

TEST_CASE("Config: explore, explore_profiles, adopt and adopt_requires_bench are read and checked (issue 15 item 1)", "[config][explore]") {
  TempDir t;
  t.write("shipped/named/mimalloc.toml", "allocator = \"mimalloc\"\n");
  t.write("shipped/named/baseline.toml", "allocator = \"system\"\n");
  t.write("user/profiles/fast.toml", "allocator = \"jemalloc\"\n");
  auto r = request_in(t);
  auto loaded = config::load(r);
  CHECK(loaded.settings.explore.value == 0);  // off unless asked for
  CHECK(loaded.settings.explore_profiles.value == std::vector<std::string>{"mimalloc", "jemalloc", "tcmalloc", "system"});
  CHECK(loaded.settings.adopt.value == false);
  CHECK(loaded.settings.adopt_requires_bench.value == true);
  t.write("user/config.toml",
          "explore = 0.1\nexplore_profiles = [\"mimalloc\", \"system\", \"fast\", \"slow\"]\nadopt = true\nadopt_requires_bench = false\n"
          "[profile.slow]\nallocator = \"system\"\n");
  loaded = config::load(r);
  INFO((loaded.problems.empty() ? "" : loaded.problems[0].str()));
  REQUIRE_FALSE(loaded.has_errors());
  CHECK(loaded.settings.explore.value == 0.1);
  CHECK(loaded.settings.explore.origin.str() == r.user_file + ":1");
  CHECK(loaded.settings.explore_profiles.value == std::vector<std::string>{"mimalloc", "system", "fast", "slow"});
  CHECK(loaded.settings.adopt.value == true);
  CHECK(loaded.settings.adopt_requires_bench.value == false);
  t.write("user/config.toml", "explore = 1.5\n");
  CHECK(mentions(config::load(r), "config.toml:1:11: error: 'explore' must be a share of runs between 0 (off) and 1"));
  t.write("user/config.toml", "explore = -0.1\n");
  CHECK(mentions(config::load(r), "'explore' must be a share of runs between 0 (off) and 1"));
  t.write("user/config.toml", "explore = 1\n");  // an integer share is fine
  CHECK(config::load(r).settings.explore.value == 1);
  t.write("user/config.toml", "explore_profiles = [\"mimalloc\", \"mimaloc\"]\n");
  CHECK(mentions(config::load(r), "config.toml:1:33: error: explore_profiles: no profile named 'mimaloc'; did you mean 'mimalloc'?"));
  t.write("user/config.toml", "explore_profiles = \"mimalloc\"\n");
  CHECK(mentions(config::load(r), "'explore_profiles' must be a list of named profiles"));
  t.write("user/config.toml", "explore_profiles = [\"/x/y.toml\"]\n");
  CHECK(mentions(config::load(r), "config.toml:1:21: error: 'explore_profiles' must list named profiles"));
  t.write("user/config.toml", "adopt = \"yes\"\n");
  CHECK(mentions(config::load(r), "'adopt' must be true or false"));
  t.write("user/config.toml", "exploer = 0.1\n");
  CHECK(mentions(config::load(r), "unknown key 'exploer'; did you mean 'explore'?"));
}

TEST_CASE("Config: the explore and adopt keys are restricted: ignored from an untrusted project file, honoured once trusted", "[config][explore][trust]") {
  TempDir t;
  t.write("shipped/named/mimalloc.toml", "allocator = \"mimalloc\"\n");
  config::TrustStore store(t.path + "/state/trusted");
  auto r = request_in(t, "yosys", &store);
  std::string body = "explore = 0.5\nexplore_profiles = [\"mimalloc\"]\nadopt = true\nadopt_requires_bench = false\n";
  auto project = t.write("proj/.edashim.toml", body);
  auto loaded = config::load(r);
  CHECK(loaded.settings.explore.value == 0);
  CHECK(loaded.settings.adopt.value == false);
  CHECK(loaded.settings.adopt_requires_bench.value == true);
  REQUIRE(loaded.ignored.count(project));
  // (in the file's key order, as toml++ keeps it: sorted)
  CHECK(ignored_keys(loaded, project) == std::vector<std::string>{"adopt", "adopt_requires_bench", "explore", "explore_profiles"});
  // In a [tool.X] section too.
  t.write("proj/.edashim.toml", "[tool.yosys]\nexplore = 0.5\n");
  loaded = config::load(r);
  CHECK(loaded.settings.explore.value == 0);
  CHECK(ignored_keys(loaded, project) == std::vector<std::string>{"explore"});
  // Trusted: honoured.
  t.write("proj/.edashim.toml", body);
  REQUIRE(store.trust(config::trust_key(project), body).ok());
  loaded = config::load(r);
  CHECK(loaded.untrusted_files.empty());
  CHECK(loaded.settings.explore.value == 0.5);
  CHECK(loaded.settings.adopt.value == true);
  // The system's file is the administrator's: honoured.
  t.write("proj/.edashim.toml", "");
  t.write("etc/config.toml", "explore = 0.2\n");
  CHECK(config::load(r).settings.explore.value == 0.2);
}

// Issue 17 item 3: a new memory option's bad value is reported at its line, before any run.
TEST_CASE("A memory option's bad value names the file, the line and the range", "[config][options]") {
  TempDir t;
  t.write("user/config.toml", "allocator = \"jemalloc\"\n[jemalloc]\nretain = false\ntcache_nslots_small_max = 4096\n");
  auto loaded = config::load(request_in(t));
  REQUIRE(loaded.has_errors());
  CHECK(loaded.problems[0].line == 4);
  CHECK(mentions(loaded, "[jemalloc] tcache_nslots_small_max is 4096, expected an integer from 1 to 2048"));
}

// `edashim profiles` shows what a profile file says of itself (issue 17: a lean profile that is
// not lean must say so where it is chosen).
TEST_CASE("A profile's summary is its leading comment block, without its own name", "[profiles]") {
  CHECK(commands::profile_summary("jemalloc", "# jemalloc: preload jemalloc.\nallocator = \"jemalloc\"\n") ==
        "preload jemalloc.");
  CHECK(commands::profile_summary("x", "# No lean setting found:\n#   the best was 1.2x.\n\n# later\nallocator = 1\n") ==
        "No lean setting found: the best was 1.2x.");
  CHECK(commands::profile_summary("x", "allocator = \"glibc\"\n# after a key\n").empty());
  CHECK(commands::profile_summary("x", "").empty());
  CHECK(commands::profile_summary("x", "#\n# y: another name, kept\n") == "y: another name, kept");
}

// Issue 27 (tests/mutants: range-scratch-mb-overflow): the bound is what keeps the count of
// bytes (MiB * 2^20) inside 64 bits; a value just above it, far below INT64_MAX, is refused too.
TEST_CASE("Config: scratch_min_free_mb is refused just above 1073741824 MiB, not only near overflow", "[config]") {
  TempDir t;
  t.write("user/config.toml", "scratch_min_free_mb = 1073741824\n");
  auto loaded = config::load(request_in(t));
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.scratch_min_free_mb.value == 1073741824);
  for (const char* value : {"1073741825", "1099511627776", "-1"}) {
    t.write("user/config.toml", std::string("scratch_min_free_mb = ") + value + "\n");
    loaded = config::load(request_in(t));
    CHECK(mentions(loaded, "'scratch_min_free_mb' must be a whole number of MiB between 0 and 1073741824"));
    CHECK(loaded.settings.scratch_min_free_mb.value != std::stoll(value));
  }
}

TEST_CASE("Another user's project file in a directory not the user's is ignored silently", "[config]") {
  auto st = [](uid_t uid, mode_t mode) {
    struct stat s {};
    s.st_uid = uid;
    s.st_mode = mode;
    return s;
  };
  const uid_t me = 1000, other = 2000;
  auto file = st(other, S_IFREG | 0644);
  CHECK(config::foreign_in_foreign_dir(file, st(0, S_IFDIR | 01777), me));      // /tmp
  CHECK(config::foreign_in_foreign_dir(file, st(other, S_IFDIR | 0755), me));   // theirs
  CHECK(config::foreign_in_foreign_dir(file, st(0, S_IFDIR | 0755), me));       // root's, not mine
  CHECK(config::foreign_in_foreign_dir(file, st(me, S_IFDIR | 01777), me));     // mine, but open to all
  CHECK_FALSE(config::foreign_in_foreign_dir(file, st(me, S_IFDIR | 0755), me));  // mine: said
  CHECK_FALSE(config::foreign_in_foreign_dir(st(me, S_IFREG | 0644), st(0, S_IFDIR | 01777), me));
  CHECK_FALSE(config::foreign_in_foreign_dir(st(0, S_IFREG | 0644), st(0, S_IFDIR | 01777), me));  // root's file
  // Root running: /tmp is root's own directory, but anyone can leave a file there.
  CHECK(config::foreign_in_foreign_dir(file, st(0, S_IFDIR | 01777), 0));
}
