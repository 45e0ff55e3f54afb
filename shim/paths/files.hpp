#pragma once
// The files edashim reads and writes for this installation and user: where profiles, trust and
// caches live. Only names: nothing here opens them.
#include <string>

namespace paths {

// Where edashim's files live for this installation and user.
struct Files {
  std::string shipped_dir;        // <prefix>/share/edashim/profiles
  std::string system_file;        // /etc/edashim/config.toml
  std::string user_file;          // $XDG_CONFIG_HOME/edashim/config.toml
  std::string user_profiles_dir;  // $XDG_CONFIG_HOME/edashim/profiles
  std::string trust_file;         // $XDG_STATE_HOME/edashim/trusted
  std::string learned_file;       // $XDG_STATE_HOME/edashim/learned.toml
  std::string probe_library;      // <prefix>/lib/edashim/libedashim_probe.so (may be absent)
  static Files discover();
};

// The pre-flight facts every edashim process shares: $XDG_CACHE_HOME/edashim/facts.tsv.
std::string fact_cache_file();

}  // namespace paths
