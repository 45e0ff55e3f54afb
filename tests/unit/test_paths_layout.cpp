#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "paths/layout.hpp"
#include "temp_dir.hpp"

// The shim and the `edashim` command find each other, the probe and the shipped profiles from
// where they are; either binary must compute the same layout.

TEST_CASE("An installed layout is the same seen from the shim and from the command", "[layout]") {
  auto installed = [](const std::string& p) { return p == "/opt/e/share/edashim/profiles"; };
  for (std::string self : {"/opt/e/bin/edashim", "/opt/e/lib/edashim/edashim-cli"}) {
    auto l = paths::layout_for(self, installed, "/src/profiles");
    CHECK(l.shim == "/opt/e/bin/edashim");
    CHECK(l.command == "/opt/e/lib/edashim/edashim-cli");
    CHECK(l.probe == "/opt/e/lib/edashim/libedashim_probe.so");
    CHECK(l.shipped_profiles == "/opt/e/share/edashim/profiles");
    CHECK(l.modulefiles == "/opt/e/share/edashim/modulefiles");
  }
}

TEST_CASE("A build tree keeps the binaries and the probe together and uses the sources' profiles", "[layout]") {
  auto nothing = [](const std::string&) { return false; };
  for (std::string self : {"/b/shim/edashim", "/b/shim/edashim-cli"}) {
    auto l = paths::layout_for(self, nothing, "/src/profiles");
    CHECK(l.shim == "/b/shim/edashim");
    CHECK(l.command == "/b/shim/edashim-cli");
    CHECK(l.probe == "/b/shim/libedashim_probe.so");
    CHECK(l.shipped_profiles == "/src/profiles");
    CHECK(l.modulefiles.empty());  // a build tree has none to point a user at
  }
  // An installed binary without its profiles stays an installed layout (doctor reports it).
  auto l = paths::layout_for("/usr/bin/edashim", nothing, "");
  CHECK(l.shipped_profiles == "/usr/share/edashim/profiles");
}

// Issue 12 item 8: the build tree's profiles path was compiled into every binary, installed
// ones too; now only a marker file beside a developer build's binaries names it.
TEST_CASE("Only a build-tree marker beside the binary names the source profiles", "[layout][hardening]") {
  TempDir t;
  CHECK(paths::build_tree_profiles(t.path) == "");  // an installed binary: no marker
  auto marker = t.write("edashim-build-tree", "/src/profiles\n");
  CHECK(paths::build_tree_profiles(t.path) == "/src/profiles");
  ::chmod(marker.c_str(), 0664);  // another could point it elsewhere
  CHECK(paths::build_tree_profiles(t.path) == "");
  ::chmod(marker.c_str(), 0644);
  t.write("edashim-build-tree", "profiles\n");  // relative: refused
  CHECK(paths::build_tree_profiles(t.path) == "");
  ::unlink(marker.c_str());
  REQUIRE(::symlink("/etc/hostname", marker.c_str()) == 0);  // a link: refused
  CHECK(paths::build_tree_profiles(t.path) == "");
}
