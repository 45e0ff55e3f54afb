#include "alloc/allocators.hpp"

#include <glob.h>

#include <algorithm>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace alloc {

const std::vector<Allocator>& known() {
  static const std::vector<Allocator> list = {
      {"mimalloc", "mimalloc", {"libmimalloc.so.3", "libmimalloc.so.2", "libmimalloc.so"}},
      {"jemalloc", "jemalloc", {"libjemalloc.so.2", "libjemalloc.so"}},
      // The minimal tcmalloc: the full one adds a heap profiler we do not want in every process.
      {"tcmalloc", "tcmalloc", {"libtcmalloc_minimal.so.4", "libtcmalloc.so.4", "libtcmalloc_minimal.so"}},
      // The proxy replaces malloc; libtbbmalloc.so.2 alone only offers scalable_malloc.
      {"tbbmalloc", "tbbmalloc", {"libtbbmalloc_proxy.so.2", "libtbbmalloc_proxy.so"}},
  };
  return list;
}

const Allocator* find(std::string_view name) {
  for (const auto& a : known())
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<std::string> known_names() {
  std::vector<std::string> out = {"system"};
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

std::string allocator_of_library(std::string_view path) {
  std::string base = util::basename(std::string(path));
  for (const auto& [prefix, name] : std::vector<std::pair<std::string, std::string>>{
           {"libmimalloc", "mimalloc"}, {"libjemalloc", "jemalloc"}, {"libtcmalloc", "tcmalloc"},
           {"libtbbmalloc_proxy", "tbbmalloc"}, {"libhoard", "hoard"}, {"libsnmalloc", "snmalloc"},
           {"librpmalloc", "rpmalloc"}})
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
