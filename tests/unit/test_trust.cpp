#include <catch2/catch.hpp>

#include "config/trust.hpp"
#include "temp_dir.hpp"

TEST_CASE("Trust is pinned to content and path, and can be revoked", "[trust]") {
  TempDir t;
  config::TrustStore store(t.path + "/state/trusted");
  std::string error;
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "a"));
  REQUIRE(store.trust("/p/.edashim.toml", "a", error));
  CHECK(store.is_trusted("/p/.edashim.toml", "a"));
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "b"));
  CHECK_FALSE(store.is_trusted("/q/.edashim.toml", "a"));
  // Re-trusting after an edit replaces the old record.
  REQUIRE(store.trust("/p/.edashim.toml", "b", error));
  CHECK(store.is_trusted("/p/.edashim.toml", "b"));
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "a"));
  REQUIRE(store.untrust("/p/.edashim.toml", error));
  CHECK_FALSE(store.is_trusted("/p/.edashim.toml", "b"));
  CHECK_FALSE(store.untrust("/p/.edashim.toml", error));
  CHECK(error.find("was not trusted") != std::string::npos);
}
