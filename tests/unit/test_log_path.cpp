// The `log` setting's {host} placeholder (issue 16 item 4): expansion, the host name made safe
// as a path component, and the message for any other placeholder, where it was written.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "config/load.hpp"
#include "config/log_path.hpp"
#include "config_fixture.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"

TEST_CASE("Log path: {host} is replaced by the host name, every time it appears, and nothing without it", "[log_path]") {
  CHECK(config::expand_log_path("/shared/edashim-logs/{host}.jsonl", "node1") == "/shared/edashim-logs/node1.jsonl");
  CHECK(config::expand_log_path("/shared/{host}/{host}.jsonl", "n2.farm.example") == "/shared/n2.farm.example/n2.farm.example.jsonl");
  CHECK(config::expand_log_path("/home/me/runs.jsonl", "node1") == "/home/me/runs.jsonl");
  CHECK(config::names_host("/x/{host}.jsonl"));
  CHECK_FALSE(config::names_host("/x/host.jsonl"));
}

TEST_CASE("Log path: a host name is one plain path component, whatever gethostname says", "[log_path]") {
  CHECK(config::safe_host_name("node1") == "node1");
  CHECK(config::safe_host_name("node-1.cluster_a.example") == "node-1.cluster_a.example");
  CHECK(config::safe_host_name("a/b") == "a_b");
  CHECK(config::safe_host_name("..") == "__");
  CHECK(config::safe_host_name(".") == "_");
  CHECK(config::safe_host_name(".hidden") == "_hidden");
  CHECK(config::safe_host_name("a..b") == "a._b");
  CHECK(config::safe_host_name("x y*z\n") == "x_y_z_");
  CHECK(config::safe_host_name("h\xc3\xa9") == "h__");  // UTF-8 bytes are outside the set too
  CHECK(config::safe_host_name("") == "unknown-host");
  // Whatever the name, the file stays in the directory the setting names, and no component of
  // the expanded path is "." or "..".
  for (const std::string& bad : std::vector<std::string>{"..", "../../etc/passwd", "/", "a/../../b", ".", "...", "./.", "x/..", std::string("a\0b", 3)}) {
    INFO(bad);
    std::string file = config::expand_log_path("/shared/logs/{host}.jsonl", bad);
    CHECK(util::dirname(file) == "/shared/logs");
    std::string dir = config::expand_log_path("/shared/logs/{host}/runs.jsonl", bad);
    CHECK(util::dirname(util::dirname(dir)) == "/shared/logs");
    std::string component = util::basename(util::dirname(dir));
    CHECK(component != ".");
    CHECK(component != "..");
    CHECK(component.find('/') == std::string::npos);
  }
}

TEST_CASE("Log path: any placeholder but {host}, or a stray brace, is refused with a message naming {host}", "[log_path]") {
  CHECK(config::log_placeholder_problem("/x/runs.jsonl").empty());
  CHECK(config::log_placeholder_problem("/x/{host}.jsonl").empty());
  CHECK(config::log_placeholder_problem("/x/{host}-{host}.jsonl").empty());
  auto user = config::log_placeholder_problem("/x/{user}.jsonl");
  CHECK(user.find("unknown placeholder {user} in 'log'") != std::string::npos);
  CHECK(user.find("{host}") != std::string::npos);
  CHECK(config::log_placeholder_problem("/x/{HOST}.jsonl").find("unknown placeholder {HOST}") != std::string::npos);
  CHECK(config::log_placeholder_problem("/x/{}.jsonl").find("unknown placeholder {}") != std::string::npos);
  CHECK(config::log_placeholder_problem("/x/{host.jsonl").find("a '{' in 'log' that opens no placeholder") != std::string::npos);
  CHECK(config::log_placeholder_problem("/x/{{host}.jsonl").find("opens no placeholder") != std::string::npos);
  CHECK(config::log_placeholder_problem("/x/host}.jsonl").find("a '}' in 'log' that closes no placeholder") != std::string::npos);
  CHECK(config::log_placeholder_problem("/x/{user}", "EDASHIM_LOG").find("in EDASHIM_LOG;") != std::string::npos);
}

TEST_CASE("Log path: an unknown placeholder in a config file is an error at its file and line, and the setting is not taken", "[log_path][config]") {
  TempDir t;
  auto file = t.write("user/config.toml", "probe = true\nlog = \"/shared/{user}.jsonl\"\n");
  auto loaded = config::load(request_in(t));
  REQUIRE(loaded.has_errors());
  REQUIRE(loaded.problems.size() == 1);
  CHECK(loaded.problems[0].str().rfind(file + ":2:", 0) == 0);
  CHECK(mentions(loaded, "unknown placeholder {user} in 'log'; the one placeholder is {host}"));
  CHECK(loaded.settings.log.value.empty());

  // {host} is kept as written in the settings: the plan expands it (explain shows both).
  t.write("user/config.toml", "log = \"/shared/{host}.jsonl\"\n");
  loaded = config::load(request_in(t));
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.log.value == "/shared/{host}.jsonl");
  CHECK(loaded.settings.log.origin.str() == file + ":1");
}

TEST_CASE("Log path: EDASHIM_LOG takes {host} too, and names itself in the message for another placeholder", "[log_path][config]") {
  TempDir t;
  auto r = request_in(t);
  r.log = "/shared/{host}.jsonl";
  auto loaded = config::load(r);
  CHECK_FALSE(loaded.has_errors());
  CHECK(loaded.settings.log.value == "/shared/{host}.jsonl");
  CHECK(loaded.settings.log.origin.str() == "EDASHIM_LOG");
  r.log = "/shared/{date}.jsonl";
  loaded = config::load(r);
  REQUIRE(loaded.has_errors());
  CHECK(mentions(loaded, "EDASHIM_LOG: error: unknown placeholder {date} in EDASHIM_LOG"));
  CHECK(loaded.settings.log.value.empty());
}

TEST_CASE("Log path: an untrusted project file still cannot set the log, {host} or not", "[log_path][config][trust]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  auto file = t.write("proj/.edashim.toml", "log = \"/tmp/{host}.jsonl\"\n");
  auto r = request_in(t, "yosys", &store);
  auto loaded = config::load(r);
  CHECK(loaded.settings.log.value.empty());
  REQUIRE(loaded.untrusted_files.size() == 1);
  CHECK(loaded.untrusted_files[0] == file);
  REQUIRE(store.trust(file, "log = \"/tmp/{host}.jsonl\"\n").ok());
  loaded = config::load(r);
  CHECK(loaded.settings.log.value == "/tmp/{host}.jsonl");
}

TEST_CASE("Log path: under /proc or /sys no run can log, and doctor says why, elsewhere nothing is said", "[log_path]") {
  CHECK(config::log_path_impossible("/proc/edashim/runs.jsonl").find("is under /proc, the kernel's own file system") !=
        std::string::npos);
  CHECK(config::log_path_impossible("/sys/x.jsonl").find("is under /sys") != std::string::npos);
  CHECK_FALSE(config::log_path_impossible("/proc").empty());
  CHECK(config::log_path_impossible("/processes/runs.jsonl").empty());
  CHECK(config::log_path_impossible("/system/runs.jsonl").empty());
  CHECK(config::log_path_impossible("/home/me/.local/state/edashim/runs.jsonl").empty());
}
