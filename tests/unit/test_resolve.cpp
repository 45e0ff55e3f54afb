#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "temp_dir.hpp"
#include "tool/resolve.hpp"

namespace {
void make_exec(const std::string& path, const std::string& body = "#!/bin/sh\n") {
  util::make_dirs(util::dirname(path));
  FILE* f = std::fopen(path.c_str(), "w");
  std::fwrite(body.data(), 1, body.size(), f);
  std::fclose(f);
  ::chmod(path.c_str(), 0755);
}
}  // namespace

TEST_CASE("The first executable of that name on PATH wins and non-executables are passed over", "[resolve]") {
  TempDir t;
  make_exec(t.path + "/b/yosys");
  t.write("a/yosys", "not executable");
  auto self = tool::SelfIdentity::current(nullptr);
  auto r = tool::resolve("yosys", t.path + "/a:" + t.path + "/b:" + t.path + "/c", self);
  CHECK(r.path == t.path + "/b/yosys");
  CHECK(r.searched.size() == 2);
}

TEST_CASE("Links to edashim itself (symbolic or hard) are skipped", "[resolve]") {
  TempDir t;
  util::make_dirs(t.path + "/shims");
  ::symlink("/proc/self/exe", (t.path + "/shims/yosys").c_str());
  auto exe = util::self_exe();
  REQUIRE(::symlink(exe.c_str(), (t.path + "/shims/vpr").c_str()) == 0);
  make_exec(t.path + "/real/vpr");
  auto self = tool::SelfIdentity::current(nullptr);
  auto r = tool::resolve("vpr", t.path + "/shims:" + t.path + "/real", self);
  CHECK(r.path == t.path + "/real/vpr");
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0] == t.path + "/shims/vpr");
}

TEST_CASE("A copy of edashim (same build-id) is recognised and skipped", "[resolve]") {
  TempDir t;
  auto exe = util::self_exe();
  auto content = util::read_file(exe, 1 << 30);
  REQUIRE(content);
  make_exec(t.path + "/copy/yosys", *content);
  make_exec(t.path + "/real/yosys");
  auto self = tool::SelfIdentity::current(nullptr);
  CHECK(tool::is_edashim(t.path + "/copy/yosys", self));
  auto r = tool::resolve("yosys", t.path + "/copy:" + t.path + "/real", self);
  CHECK(r.path == t.path + "/real/yosys");
}

TEST_CASE("Binaries already in the chain are skipped", "[resolve]") {
  TempDir t;
  make_exec(t.path + "/x/yosys");
  make_exec(t.path + "/y/yosys");
  std::string chain = t.path + "/x/yosys";
  auto self = tool::SelfIdentity::current(chain.c_str());
  auto r = tool::resolve("yosys", t.path + "/x:" + t.path + "/y", self);
  CHECK(r.path == t.path + "/y/yosys");
}

TEST_CASE("Not found says so like a shell and lists what was searched", "[resolve]") {
  auto self = tool::SelfIdentity::current(nullptr);
  auto r = tool::resolve("no-such-tool-xyz", "/nonexistent1:/nonexistent2", self);
  CHECK(r.path.empty());
  auto msg = tool::not_found_message("no-such-tool-xyz", r);
  CHECK(msg.find("no-such-tool-xyz: command not found") == 0);
  CHECK(msg.find("/nonexistent1:/nonexistent2") != std::string::npos);
}
