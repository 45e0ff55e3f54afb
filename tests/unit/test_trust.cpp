#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "config/trust.hpp"
#include "temp_dir.hpp"
#include "util/fs.hpp"
#include "util/sha256.hpp"

TEST_CASE("Trust is pinned to content and path, and can be revoked", "[trust]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  std::string error;
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "a"));
  REQUIRE(store.trust("/p/.edashim.toml", "a").ok());
  CHECK(store.is_trusted("/p/.edashim.toml", "a"));
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "b"));
  CHECK_FALSE(store.is_trusted("/q/.edashim.toml", "a"));
  // Re-trusting after an edit replaces the old record.
  REQUIRE(store.trust("/p/.edashim.toml", "b").ok());
  CHECK(store.is_trusted("/p/.edashim.toml", "b"));
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "a"));
  REQUIRE(store.untrust("/p/.edashim.toml").ok());
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "b"));
  auto again = store.untrust("/p/.edashim.toml");
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().find("was not trusted") != std::string::npos);
}

// Issue 12 item 2: the store was "hash path\n", so a directory named "x\n<sha256> /evil" made
// `edashim trust` inside it write a valid entry for a file never trusted.
TEST_CASE("Trust store: no path can forge an entry, and every path round-trips", "[trust][hardening]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  std::string error;
  std::string evil = "/evil/.edashim.toml";
  std::string forged_dir = "/tmp/x\n" + util::sha256_hex("evil") + " " + evil + "\n/" ;
  REQUIRE(store.trust(forged_dir + "/.edashim.toml", "mine").ok());
  CHECK_FALSE(store.is_trusted(evil, "evil"));
  CHECK(store.is_trusted(forged_dir + "/.edashim.toml", "mine"));
  for (std::string odd : {std::string("/a b/\\n/.edashim.toml"), std::string("/t\tab/\x7f\x01/x"), std::string("/\\x0a")}) {
    REQUIRE(store.trust(odd, "c").ok());
    CHECK(store.is_trusted(odd, "c"));
  }
  auto text = util::read_file(store.path()).value();
  CHECK(text.rfind("edashim-trust 2\n", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);  // the header and 4 entries, one line each
  // ... and `untrust` removes what `trust` added.
  REQUIRE(store.untrust(forged_dir + "/.edashim.toml").ok());
  CHECK_FALSE(store.is_trusted(forged_dir + "/.edashim.toml", "mine"));
}

TEST_CASE("Trust store: a line that does not parse exactly refuses the whole store", "[trust][hardening]") {
  std::string h(64, 'a');
  auto entries = config::TrustStore::parse("edashim-trust 2\n" + h + " /p/.edashim.toml\n");
  REQUIRE(entries.ok());
  CHECK(entries->size() == 1);
  std::string error;
  for (std::string bad : {"edashim-trust 2\n" + h + "  /p\n", "edashim-trust 2\n" + h + " p\n", "edashim-trust 2\n" + h + " /p",
                          "edashim-trust 2\n" + std::string(64, 'A') + " /p\n", std::string("edashim-trust 2\n\n"),
                          "edashim-trust 2\n" + h + " /p\\n\n", "edashim-trust 2\n" + h + " /p\\x41\n",
                          "edashim-trust 2\n" + h + " /p\r\n", std::string("edashim-trust 3\n"), std::string("junk\n")}) {
    INFO(bad);
    auto refused = config::TrustStore::parse(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK_FALSE(refused.error().empty());
    error = refused.error();
  }
  CHECK(error == "line 1: not an edashim trust store (expected \"edashim-trust 2\"); fix or remove it");

  TempDir t;
  auto path = t.write("state/trusted", "edashim-trust 2\n" + util::sha256_hex("a") + " /p/.edashim.toml\nrubbish\n");
  config::TrustStore store(path);
  std::string why;
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "a", &why));
  CHECK(why == "line 3: not \"<sha256> <absolute path>\"; fix or remove the store");
  auto unread = store.trust("/q/.edashim.toml", "b");  // not rewritten over what it cannot read
  REQUIRE_FALSE(unread.ok());
  CHECK(unread.error() == path + ": line 3: not \"<sha256> <absolute path>\"; fix or remove the store");
  CHECK(util::read_file(path).value().find("rubbish") != std::string::npos);
}

TEST_CASE("Trust store: the old format is not trusted, and trusting sets it aside", "[trust][hardening]") {
  TempDir t;
  auto path = t.write("state/trusted", "# edashim trusted project files: sha256 of the content, then the path.\n" +
                                           util::sha256_hex("a") + " /p/.edashim.toml\n");
  config::TrustStore store(path);
  std::string why;
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "a", &why));
  CHECK(why.find("old trust format") != std::string::npos);
  auto trusted = store.trust("/p/.edashim.toml", "a");
  REQUIRE(trusted.ok());
  CHECK(trusted->set_aside == path + ".v1");  // for the command to say
  CHECK(store.is_trusted("/p/.edashim.toml", "a"));
  CHECK(util::exists(path + ".v1"));
}

TEST_CASE("Trust store: concurrent trusts lose no entry", "[trust][hardening]") {
  TempDir t;
  const std::string path = t.path + "/state/trusted";
  std::vector<pid_t> kids;
  for (int k = 0; k < 8; ++k) {
    pid_t pid = ::fork();
    if (pid == 0) {
      config::TrustStore store(path);
      bool ok = true;
      for (int i = 0; i < 20; ++i) ok = store.trust("/p" + std::to_string(k) + "/" + std::to_string(i), "x").ok() && ok;
      ::_exit(ok ? 0 : 1);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(status == 0);
  }
  config::TrustStore store(path);
  for (int k = 0; k < 8; ++k)
    for (int i = 0; i < 20; ++i) CHECK(store.is_trusted("/p" + std::to_string(k) + "/" + std::to_string(i), "x"));
}

// Issue 27 (tests/mutants: trust-store-anyones): whoever can write the store decides which
// project files run unchecked, so a store others or the group can write trusts nothing, and
// says why; the owned-file rule of the store takes no shared_dirs.
TEST_CASE("Trust store: a store others or the group can write trusts nothing", "[trust][hardening]") {
  TempDir t;
  const std::string path = t.path + "/state/trusted";
  config::TrustStore store(path);
  std::string error;
  REQUIRE(store.trust("/p/.edashim.toml", "a").ok());
  REQUIRE(store.is_trusted("/p/.edashim.toml", "a"));
  for (mode_t mode : {mode_t(0620), mode_t(0602)}) {
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    std::string why;
    CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "a", &why));
    CHECK(why.find("writable by") != std::string::npos);
  }
}
