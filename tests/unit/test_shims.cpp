#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "commands/shims.hpp"
#include "temp_dir.hpp"

TEST_CASE("Shim names must be plain tool names", "[shims]") {
  CHECK_FALSE(commands::bad_tool_name("yosys"));
  CHECK_FALSE(commands::bad_tool_name("yosys-abc"));
  CHECK_FALSE(commands::bad_tool_name("odin_II"));
  CHECK(commands::bad_tool_name(""));
  CHECK(commands::bad_tool_name("."));
  CHECK(commands::bad_tool_name(".."));
  CHECK(commands::bad_tool_name("/usr/bin/yosys"));
  CHECK(commands::bad_tool_name("edashim"));
  CHECK(commands::bad_tool_name("--all"));
  CHECK(commands::bad_tool_name("a\nb"));
}

TEST_CASE("Link targets are relative inside one prefix, absolute across unrelated trees", "[shims]") {
  CHECK(commands::link_target("/home/u/.local/lib/edashim/shims", "/home/u/.local/bin/edashim") ==
        "../../../bin/edashim");
  CHECK(commands::link_target("/usr/local/lib/edashim/shims", "/usr/local/bin/edashim") == "../../../bin/edashim");
  CHECK(commands::link_target("/opt/shims", "/home/u/.local/bin/edashim") == "/home/u/.local/bin/edashim");
  CHECK(commands::link_target("/x/bin", "/x/bin/edashim") == "edashim");
}

TEST_CASE("Only links to edashim count as shim links", "[shims]") {
  TempDir t;
  auto self = tool::SelfIdentity::current(nullptr);
  std::string exe = util::self_exe();
  REQUIRE(::symlink(exe.c_str(), (t.path + "/mine").c_str()) == 0);
  REQUIRE(::symlink("../gone/bin/edashim", (t.path + "/dangling").c_str()) == 0);
  REQUIRE(::symlink("/bin/sh", (t.path + "/other").c_str()) == 0);
  t.write("plain", "#!/bin/sh\n");
  CHECK(commands::is_shim_link(t.path + "/mine", self));
  CHECK(commands::is_shim_link(t.path + "/dangling", self));  // a removed edashim's link: still ours to clean
  CHECK_FALSE(commands::is_shim_link(t.path + "/other", self));
  CHECK_FALSE(commands::is_shim_link(t.path + "/plain", self));
  CHECK_FALSE(commands::is_shim_link(t.path + "/absent", self));
  CHECK(commands::shim_links(t.path, self) == std::vector<std::string>{"dangling", "mine"});
  CHECK(commands::shim_links(t.path + "/absent", self).empty());
}
