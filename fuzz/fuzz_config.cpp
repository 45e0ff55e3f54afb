// Fuzzes the profile loader (config::load) on one config file of arbitrary bytes, read as the
// user's file (every key allowed), as an untrusted project file, or as a --profile path; then
// builds the tool's environment from what was loaded. Must never crash, hang or leak, and no
// option value may be kept that its grammar refuses.
#include <cctype>
#include <cstdint>

#include "alloc/options.hpp"
#include "config/load.hpp"
#include "fuzz_common.hpp"
#include "pipeline/plan.hpp"
#include "run/environment.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string& dir = fuzz_dir();
  int role = data[0] % 3;
  config::TrustStore trust(dir + "/state/trusted");
  config::LoadRequest r;
  r.tool = "yosys";
  r.cwd = dir + "/proj";
  r.shipped_dir = dir + "/shipped";
  r.system_file = dir + "/etc/config.toml";
  r.user_file = dir + "/user/config.toml";
  r.user_profiles_dir = dir + "/user/profiles";
  r.chosen.profile = "fast";  // [profile.fast] sections apply
  r.trust = &trust;
  std::string file = role == 0 ? r.user_file : role == 1 ? r.cwd + "/.edashim.toml" : dir + "/mine.toml";
  if (role == 2) r.chosen.profile = file;
  util::make_dirs(r.cwd, 0700);
  write_whole(file, data + 1, size - 1);
  auto loaded = config::load(r);
  for (const auto& p : loaded.problems) (void)p.str();
  // Whatever the file said, an option value kept is one its grammar allows, and an untrusted
  // file keeps no restricted option (issue 12 item 1).
  for (const auto& [family, options] : loaded.settings.options)
    for (const auto& [name, value] : options) {
      if (alloc::check_value(family, name, value.value)) __builtin_trap();
      if (role == 1 && alloc::restricted_option(family, name)) __builtin_trap();
      for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) __builtin_trap();
    }
  for (const char* family : {"mimalloc", "jemalloc", "tcmalloc", "tbbmalloc", "glibc"}) {
    run::EnvInputs in;
    in.current = {"PATH=/usr/bin", "LD_PRELOAD=/usr/lib/libjemalloc.so.2", "MALLOC_CONF=abc", "GLIBC_TUNABLES=glibc.malloc.arena_max=2"};
    in.options_family = family;
    in.allocator_library = loaded.settings.allocator.value;
    pipeline::environment_settings(loaded.settings, in);
    (void)run::build_environment(in);
  }
  ::unlink(file.c_str());
  return 0;
}
