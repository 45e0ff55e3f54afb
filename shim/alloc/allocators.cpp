#include "alloc/allocators.hpp"

#include <dirent.h>
#include <glob.h>

#include <algorithm>

#include "alloc/registry.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace alloc {

const std::vector<Allocator>& known() {
  // The families with a library to preload (alloc/registry.cpp), in the registry's order.
  static const std::vector<Allocator> list = [] {
    std::vector<Allocator> out;
    for (const auto& f : families()) {
      if (f.sonames.empty()) continue;
      Allocator a{std::string(f.name), std::string(f.name), {}};
      for (auto soname : f.sonames) a.sonames.emplace_back(soname);
      out.push_back(std::move(a));
    }
    return out;
  }();
  return list;
}

const Allocator* find(std::string_view name) {
  for (const auto& a : known())
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<std::string> known_names() {
  std::vector<std::string> out = {std::string(kSystemAllocator)};
  for (const auto& a : known()) out.push_back(a.name);
  return out;
}

const std::vector<std::string>& library_dirs() {
  // Fixed at build time (EDASHIM_LIBRARY_DIRS, from CMake: the install libdir and the compiler's
  // multiarch directories), then the usual places. Never derived from where this program
  // runs from: dladdr of a static program reports argv[0], a name resolved against the cwd, so
  // a cloned repository could have put a libjemalloc.so.2 of its own first.
  static const std::vector<std::string> dirs = [] {
    std::vector<std::string> out;
    auto add = [&](const std::string& d) {
      if (!d.empty() && d[0] == '/' && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    };
#ifdef EDASHIM_LIBRARY_DIRS
    for (const auto& d : util::split(EDASHIM_LIBRARY_DIRS, ':')) add(d);
#endif
    for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/x86_64-linux-gnu",
                          "/lib/aarch64-linux-gnu", "/usr/local/lib", "/usr/lib64", "/usr/lib", "/lib64", "/lib"})
      add(d);
    // Rarely needed, so read only when the usual places are exhausted (see locate()).
    return out;
  }();
  return dirs;
}

namespace {
std::vector<std::string> ld_so_conf_dirs() {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob("/etc/ld.so.conf.d/*.conf", 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i)
      if (auto text = util::read_file(g.gl_pathv[i], 1 << 16))
        for (auto& line : util::split(*text, '\n'))
          if (!line.empty() && line[0] == '/') out.push_back(line);
  }
  ::globfree(&g);
  return out;
}
}  // namespace

std::optional<std::string> locate(const Allocator& a, const std::vector<std::string>& dirs) {
  for (const auto& soname : a.sonames)
    for (const auto& d : dirs)
      if (util::exists(d + "/" + soname)) return d + "/" + soname;
  for (const auto& soname : a.sonames)
    for (const auto& d : ld_so_conf_dirs())
      if (util::exists(d + "/" + soname)) return d + "/" + soname;
  return std::nullopt;
}

std::string build_in_words(std::string_view build) {
  if (build == kBuildEdashim) return "edashim's build";
  if (build == kBuildLibraryDirs) return "from library_dirs";
  if (build == kBuildSystem) return "the system's";
  if (build == kBuildPath) return "named by its path";
  return std::string(build);
}

std::optional<Located> locate_preferring_own(const Allocator& a, const std::string& own_dir,
                                              const std::vector<std::string>& setting_dirs) {
  // Each soname in edashim's directory before any elsewhere: its build is the one measured.
  for (const auto& soname : a.sonames)
    if (!own_dir.empty() && util::exists(own_dir + "/" + soname)) return Located{own_dir + "/" + soname, kBuildEdashim};
  for (const auto& soname : a.sonames)
    for (const auto& d : setting_dirs)
      if (util::exists(d + "/" + soname)) return Located{d + "/" + soname, kBuildLibraryDirs};
  if (auto found = locate(a, library_dirs())) return Located{*found, kBuildSystem};
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> builds_for_newer_glibc(const std::string& library) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string dir = util::dirname(library), name = util::basename(library);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    std::string_view sub = e->d_name;
    if (!util::starts_with(sub, "glibc-") || sub.size() == 6) continue;
    std::string path = dir + "/" + std::string(sub) + "/" + name;
    if (util::exists(path)) out.emplace_back(path, "GLIBC_" + std::string(sub.substr(6)));
  }
  ::closedir(d);
  return out;
}

std::vector<std::pair<std::string, std::string>> allocator_file_prefixes() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : families())
    if (!f.file_prefix.empty()) out.emplace_back(f.file_prefix, f.name);
  for (const auto& [prefix, name] : foreign_allocators()) out.emplace_back(prefix, name);
  return out;
}

std::string allocator_of_library(std::string_view path) {
  std::string base = util::basename(std::string(path));
  for (const auto& [prefix, name] : allocator_file_prefixes())
    if (util::starts_with(base, prefix)) return name;
  return "";
}

bool is_allocator_library(std::string_view path) { return !allocator_of_library(path).empty(); }

std::string version_of(const std::string& library_path) {
  auto real = util::real_path(library_path).value_or(library_path);
  std::string base = util::basename(real);
  auto pos = base.find(".so.");
  return pos == std::string::npos ? "" : base.substr(pos + 4);
}

}  // namespace alloc
