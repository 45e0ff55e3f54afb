#include <catch2/catch.hpp>
#include <set>

#include "paths/layout.hpp"

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
  }
  // An installed binary without its profiles stays an installed layout (doctor reports it).
  auto l = paths::layout_for("/usr/bin/edashim", nothing, "");
  CHECK(l.shipped_profiles == "/usr/share/edashim/profiles");
}
