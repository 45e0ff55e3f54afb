#pragma once
// Where edashim's parts are, found from the running binary. Installed: <prefix>/bin/edashim is
// the shim every tool link points to (kept small: it starts before every tool run);
// <prefix>/lib/edashim/edashim-cli is the `edashim` command with its subcommands, which the
// shim hands its own name to; the probe sits beside it and the shipped profiles are in
// <prefix>/share/edashim/profiles. In a build tree the binaries and the probe are together, and
// edashim's own allocator builds are in alloc/ beside them.
#include <functional>
#include <string>

namespace paths {

struct Layout {
  std::string shim;              // what tool links point to
  std::string command;           // the `edashim` command (edashim-cli)
  std::string probe;             // libedashim_probe.so (may be absent)
  std::string shipped_profiles;  // profiles/ with defaults/ and named/
  std::string modulefiles;       // lua/ and tcl/ module files ("" in a build tree: none there)
  std::string own_allocators;    // edashim's own allocator builds (install/allocators), beside the probe
};

// Pure: the layout around `self` (a real path: either binary). `is_dir` says whether the
// installed profiles directory exists; when it does not and `source_profiles` is given (a
// build tree), the build-tree layout is used.
Layout layout_for(const std::string& self, const std::function<bool(const std::string&)>& is_dir,
                  const std::string& source_profiles);

// The source tree's profiles directory a developer build names in the marker file CMake
// writes beside its binaries (<build>/shim/edashim-build-tree), or "" when there is none, as
// for every installed binary: nothing of the build tree is compiled into the programs, so an
// installed edashim missing its profiles cannot read the builder's. The marker must be a
// regular file of the user's or root's, like a config file.
std::string build_tree_profiles(const std::string& binary_dir);

// This process's layout, computed once.
const Layout& layout();

}  // namespace paths
