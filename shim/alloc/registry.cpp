#include "alloc/registry.hpp"

#include <algorithm>

#include <cctype>

#include "alloc/option_rules.hpp"

namespace alloc {

const std::vector<Family>& families() {
  // Sonames as Debian 12 ships them (`dpkg -L`); other distributions' directories are searched
  // (alloc::library_dirs), their file names are the same. Packages: Debian 11, 12 and 13 as
  // each release's apt-cache has them (11 has no mimalloc; its tbbmalloc is in libtbb2); no
  // other distribution is named until someone checks it.
  static const std::vector<Family> list = {
      {.name = "mimalloc",
       .sonames = {"libmimalloc.so.3", "libmimalloc.so.2", "libmimalloc.so"},
       .file_prefix = "libmimalloc",
       .packages = {{"debian", "11", ""}, {"debian", "12", "libmimalloc2.0"}, {"debian", "13", "libmimalloc3"}},
       .variable = "MIMALLOC_",
       .goes_first = true,
       .probe = VersionProbe::kReturnedConstant,
       .version_marker = "mi_version",
       .options = &kMimallocOptions},
      {.name = "jemalloc",
       .sonames = {"libjemalloc.so.2", "libjemalloc.so"},
       .file_prefix = "libjemalloc",
       .packages = {{"debian", "11", "libjemalloc2"}, {"debian", "12", "libjemalloc2"}, {"debian", "13", "libjemalloc2"}},
       .encoding = Encoding::kOneVariable,
       .variable = "MALLOC_CONF",
       .assign = ':',
       .separator = ',',
       .bool_as_word = true,
       .probe = VersionProbe::kGitDescribe,
       .options = &kJemallocOptions},
      // The minimal tcmalloc: the full one adds a heap profiler we do not want in every process.
      {.name = "tcmalloc",
       .sonames = {"libtcmalloc_minimal.so.4", "libtcmalloc.so.4", "libtcmalloc_minimal.so"},
       .file_prefix = "libtcmalloc",
       .packages = {{"debian", "11", "libtcmalloc-minimal4"}, {"debian", "12", "libtcmalloc-minimal4"},
                    {"debian", "13", "libtcmalloc-minimal4t64"}},
       .variable = "TCMALLOC_",
       .probe = VersionProbe::kAfterMarker,
       .version_marker = "gperftools ",
       .options = &kTcmallocOptions},
      // The proxy replaces malloc; libtbbmalloc.so.2 alone only offers scalable_malloc, and
      // holds the version string the proxy lacks.
      {.name = "tbbmalloc",
       .sonames = {"libtbbmalloc_proxy.so.2", "libtbbmalloc_proxy.so"},
       .file_prefix = "libtbbmalloc_proxy",
       .packages = {{"debian", "11", "libtbb2"}, {"debian", "12", "libtbbmalloc2"}, {"debian", "13", "libtbbmalloc2"}},
       .variable = "TBB_MALLOC_",
       .probe = VersionProbe::kAfterMarker,
       .version_marker = "TBBmalloc: VERSION",
       .version_library = "libtbbmalloc.so",
       .options = &kTbbmallocOptions},
      // glibc's own malloc: nothing to preload or install, tuned through GLIBC_TUNABLES.
      {.name = "glibc",
       .encoding = Encoding::kOneVariable,
       .variable = "GLIBC_TUNABLES",
       .item_prefix = "glibc.malloc.",
       .assign = '=',
       .separator = ':',
       .options = &kGlibcOptions},
      // The same tunables, applied where the chosen allocator cannot be preloaded (a static tool).
      {.name = "glibc_fallback",
       .encoding = Encoding::kOneVariable,
       .variable = "GLIBC_TUNABLES",
       .item_prefix = "glibc.malloc.",
       .assign = '=',
       .separator = ':',
       .fallback = true,
       .options = &kGlibcOptions},
  };
  return list;
}

const Family* find_family(std::string_view name) {
  for (const auto& f : families())
    if (f.name == name) return &f;
  return nullptr;
}

std::string options_family_of(std::string_view allocator) {
  return allocator == kSystemAllocator ? "glibc" : std::string(allocator);
}

namespace {
std::string_view file_name(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
}  // namespace

const Family* family_of_library(std::string_view path) {
  std::string_view base = file_name(path);
  for (const auto& f : families())
    if (!f.file_prefix.empty() && base.substr(0, f.file_prefix.size()) == f.file_prefix) return &f;
  return nullptr;
}

const std::vector<std::pair<std::string_view, std::string_view>>& foreign_allocators() {
  static const std::vector<std::pair<std::string_view, std::string_view>> list = {
      {"libhoard", "hoard"}, {"libsnmalloc", "snmalloc"}, {"librpmalloc", "rpmalloc"}};
  return list;
}

std::optional<std::string> install_command(std::string_view name, const util::Distribution& distribution) {
  const Family* f = find_family(name);
  if (!f || distribution.id != "debian") return std::nullopt;  // the one installer the table knows
  for (const auto& p : f->packages)
    if (p.distribution == distribution.id && p.version == distribution.version_id && !p.name.empty())
      return "apt-get install " + std::string(p.name);
  return std::nullopt;
}

std::string install_advice(std::string_view name, const util::Distribution& distribution) {
  const Family* f = find_family(name);
  std::string where = distribution.name.empty() ? "this system" : distribution.name;
  std::string n(name);
  if (!f || f->sonames.empty()) return "No package is known for '" + n + "'.";
  std::string dirs = "put " + std::string(f->sonames.front()) +
                     " in a directory and name it in library_dirs (the site configuration, for every user)";
  if (auto command = install_command(name, distribution)) return "Install it: " + *command + ", or " + dirs + ".";
  bool listed = std::any_of(f->packages.begin(), f->packages.end(), [&](const Package& p) {
    return p.distribution == distribution.id && p.version == distribution.version_id;
  });
  return (listed ? where + " has no package of " + n : "No package of " + n + " is known for " + where) + ": " + dirs +
         ", or choose another allocator.";
}

namespace {
// What an option's name may hold to be encoded at all: a name the option rules allow always
// does; anything else ('=', a separator, NUL) would make another variable or another option.
bool encodable(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}
}  // namespace

std::vector<std::pair<std::string, std::string>> encode_options(
    const Family& family, const std::vector<std::pair<std::string, OptionValue>>& given) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::pair<std::string, OptionValue>> options;
  for (const auto& o : given)
    if (encodable(o.first)) options.push_back(o);
  if (options.empty()) return out;
  if (family.encoding == Encoding::kVariablePerOption) {
    for (const auto& [name, value] : options) {
      std::string variable(family.variable);
      for (char c : name) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out.emplace_back(std::move(variable), render_option(value, family.bool_as_word));
    }
    return out;
  }
  std::string list;
  for (const auto& [name, value] : options) {
    if (!list.empty()) list += family.separator;
    list += std::string(family.item_prefix) + name + family.assign + render_option(value, family.bool_as_word);
  }
  out.emplace_back(std::string(family.variable), std::move(list));
  return out;
}

}  // namespace alloc
