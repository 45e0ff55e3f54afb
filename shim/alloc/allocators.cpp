#include "alloc/allocators.hpp"

#include <dlfcn.h>
#include <glob.h>

#include <algorithm>
#include <map>

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
  static const std::vector<std::string> dirs = [] {
    std::vector<std::string> out;
    auto add = [&](const std::string& d) {
      if (!d.empty() && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    };
    Dl_info info;
    if (::dladdr(reinterpret_cast<void*>(&::dladdr), &info) && info.dli_fname)
      if (auto real = util::real_path(info.dli_fname)) add(util::dirname(*real));
    for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/local/lib",
                          "/usr/lib64", "/usr/lib", "/lib64", "/lib"})
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

// ---- options ------------------------------------------------------------------------------

namespace {

enum class Kind { Bool, Int, Number, Size, String, BoolOrInt };

struct OptionSpec {
  Kind kind;
  std::string renamed;  // the name this version uses for what users may know under another
};

using Table = std::map<std::string, Kind>;

// mimalloc option names by series (mimalloc's src/options.c of 2.0.9, 2.1.x, 3.x).
const Table& mimalloc_options(const std::string& series) {
  auto v20 = []() -> const Table& {
    static const Table t = {
      {"show_errors", Kind::Bool}, {"show_stats", Kind::Bool}, {"verbose", Kind::Bool},
      {"eager_commit", Kind::Bool}, {"large_os_pages", Kind::Bool}, {"reserve_huge_os_pages", Kind::Int},
      {"reserve_huge_os_pages_at", Kind::Int}, {"reserve_os_memory", Kind::Size}, {"page_reset", Kind::Bool},
      {"abandoned_page_decommit", Kind::Bool}, {"eager_commit_delay", Kind::Int}, {"decommit_delay", Kind::Int},
      {"reset_delay", Kind::Int}, {"use_numa_nodes", Kind::Int}, {"limit_os_alloc", Kind::Bool},
      {"os_tag", Kind::Int}, {"max_errors", Kind::Int}, {"max_warnings", Kind::Int},
      {"max_segment_reclaim", Kind::Int}, {"allow_decommit", Kind::Bool}, {"segment_decommit_delay", Kind::Int},
      {"decommit_extend_delay", Kind::Int}, {"destroy_on_exit", Kind::Bool}};
    return t;
  };
  auto v21 = []() -> const Table& {
    static const Table t = {
      {"show_errors", Kind::Bool}, {"show_stats", Kind::Bool}, {"verbose", Kind::Bool},
      {"eager_commit", Kind::Bool}, {"arena_eager_commit", Kind::BoolOrInt}, {"purge_decommits", Kind::Bool},
      {"allow_large_os_pages", Kind::Bool}, {"reserve_huge_os_pages", Kind::Int},
      {"reserve_huge_os_pages_at", Kind::Int}, {"reserve_os_memory", Kind::Size},
      {"abandoned_page_purge", Kind::Bool}, {"eager_commit_delay", Kind::Int}, {"purge_delay", Kind::Int},
      {"use_numa_nodes", Kind::Int}, {"limit_os_alloc", Kind::Bool}, {"disallow_os_alloc", Kind::Bool},
      {"os_tag", Kind::Int}, {"max_errors", Kind::Int}, {"max_warnings", Kind::Int},
      {"max_segment_reclaim", Kind::Int}, {"destroy_on_exit", Kind::Bool}, {"arena_reserve", Kind::Size},
      {"arena_purge_mult", Kind::Int}, {"purge_extend_delay", Kind::Int}, {"abandoned_reclaim_on_free", Kind::Bool},
      {"disallow_arena_alloc", Kind::Bool}, {"retry_on_oom", Kind::Int}};
    return t;
  };
  auto v3 = [&]() -> const Table& {
    static const Table t3 = [&] {
    Table t = v21();
    t.erase("limit_os_alloc");
    for (auto n : {"visit_abandoned", "guarded_min", "guarded_max", "guarded_precise", "guarded_sample_rate",
                   "guarded_sample_seed", "target_segments_per_thread", "generic_collect", "page_reclaim_on_free",
                   "page_full_retain", "page_max_candidates", "max_vabits", "pagemap_commit", "page_commit_on_demand",
                   "page_max_reclaim", "page_cross_thread_max_reclaim"})
      t[n] = Kind::Int;
    return t;
    }();
    return t3;
  };
  if (util::starts_with(series, "2.0") || series == "2") return v20();
  if (util::starts_with(series, "2.")) return v21();
  return v3();
}

// Pairs of names for the same thing across mimalloc's 2.0 -> 2.1 renames.
const std::vector<std::pair<std::string, std::string>>& mimalloc_renames() {
  static const std::vector<std::pair<std::string, std::string>> r = {
      {"decommit_delay", "purge_delay"},
      {"reset_delay", "purge_delay"},
      {"large_os_pages", "allow_large_os_pages"},
      {"abandoned_page_decommit", "abandoned_page_purge"},
      {"decommit_extend_delay", "purge_extend_delay"},
      {"allow_decommit", "purge_decommits"},
      {"limit_os_alloc", "disallow_os_alloc"},
      {"arena_eager_commit", "eager_commit"},
  };
  return r;
}

// Each table is built the first time its family is asked for: a run checks one family, and
// building all of them cost every tool start a few hundred allocations.
const Table& fixed_options(const std::string& family) {
  if (family == "jemalloc") {
    // jemalloc 5.3 MALLOC_CONF keys worth setting from a profile (jemalloc's TUNING.md).
    static const Table jemalloc = {
        {"background_thread", Kind::Bool}, {"dirty_decay_ms", Kind::Int}, {"muzzy_decay_ms", Kind::Int},
        {"narenas", Kind::Int}, {"tcache", Kind::Bool}, {"tcache_max", Kind::Int}, {"thp", Kind::String},
        {"metadata_thp", Kind::String}, {"percpu_arena", Kind::String}, {"oversize_threshold", Kind::Int},
        {"lg_extent_max_active_fit", Kind::Int}, {"retain", Kind::Bool}, {"abort_conf", Kind::Bool},
        {"confirm_conf", Kind::Bool}, {"stats_print", Kind::Bool}, {"max_background_threads", Kind::Int}};
    return jemalloc;
  }
  if (family == "tcmalloc") {
    // gperftools 2.10 environment variables, without the TCMALLOC_ prefix.
    static const Table tcmalloc = {
        {"release_rate", Kind::Number}, {"aggressive_decommit", Kind::Bool},
        {"max_total_thread_cache_bytes", Kind::Int}, {"heap_limit_mb", Kind::Int},
        {"large_alloc_report_threshold", Kind::Int}, {"transfer_num_objects", Kind::Int},
        {"skip_sbrk", Kind::Bool}, {"skip_mmap", Kind::Bool}, {"sample_parameter", Kind::Int}};
    return tcmalloc;
  }
  if (family == "tbbmalloc") {
    // oneTBB 2021 scalable allocator environment variables, without the TBB_MALLOC_ prefix.
    static const Table tbbmalloc = {{"use_huge_pages", Kind::Bool}, {"set_huge_size_threshold", Kind::Int}};
    return tbbmalloc;
  }
  if (family == "glibc" || family == "glibc_fallback") {
    // glibc 2.36 malloc tunables (`ld.so --list-tunables`), without the glibc.malloc. prefix.
    static const Table glibc = {
        {"arena_max", Kind::Int}, {"arena_test", Kind::Int}, {"check", Kind::Int}, {"hugetlb", Kind::Int},
        {"mmap_max", Kind::Int}, {"mmap_threshold", Kind::Int}, {"mxfast", Kind::Int}, {"perturb", Kind::Int},
        {"tcache_count", Kind::Int}, {"tcache_max", Kind::Int}, {"tcache_unsorted_limit", Kind::Int},
        {"top_pad", Kind::Int}, {"trim_threshold", Kind::Int}};
    return glibc;
  }
  static const Table none;
  return none;
}

std::optional<std::string> check_type(Kind kind, const OptionValue& v) {
  bool ok = false;
  const char* want = "";
  switch (kind) {
    case Kind::Bool: ok = v.index() == 0; want = "a boolean (true or false)"; break;
    case Kind::Int: ok = v.index() == 1; want = "an integer"; break;
    case Kind::BoolOrInt: ok = v.index() <= 1; want = "a boolean or an integer"; break;
    case Kind::Number: ok = v.index() == 1 || v.index() == 2; want = "a number"; break;
    case Kind::String: ok = v.index() == 3 || v.index() == 0; want = "a string"; break;
    case Kind::Size:
      ok = v.index() == 1 || (v.index() == 3 && !std::get<std::string>(v).empty());
      want = "an integer number of KiB or a string with a K, M or G suffix";
      break;
  }
  if (ok) return std::nullopt;
  return std::string("is ") + alloc::type_name(v) + ", expected " + want;
}

std::vector<std::string> names_of(const Table& t) {
  std::vector<std::string> out;
  for (const auto& [k, _] : t) out.push_back(k);
  return out;
}

}  // namespace

const std::vector<std::string>& option_families() {
  // glibc_fallback: glibc tunables applied where the chosen allocator cannot be preloaded.
  static const std::vector<std::string> f = {"mimalloc", "jemalloc", "tcmalloc", "tbbmalloc", "glibc", "glibc_fallback"};
  return f;
}

std::optional<std::string> check_option(const std::string& family, const std::string& version,
                                        const std::string& name, const OptionValue& value) {
  std::string key = util::to_lower(name);
  const Table& table = family == "mimalloc" ? mimalloc_options(version) : fixed_options(family);
  auto it = table.find(key);
  if (it != table.end()) {
    if (auto bad = check_type(it->second, value)) return "[" + family + "] " + name + " " + *bad;
    return std::nullopt;
  }
  std::string where = family == "mimalloc" && !version.empty() ? " in the installed mimalloc " + version : "";
  std::string msg = "[" + family + "] has no option '" + name + "'" + where;
  if (family == "mimalloc") {
    for (const auto& [old_name, new_name] : mimalloc_renames()) {
      if (key == new_name && table.count(old_name)) return msg + "; this version calls it '" + old_name + "'";
      if (key == old_name && table.count(new_name)) return msg + "; this version calls it '" + new_name + "'";
    }
  }
  if (auto near = util::nearest(key, names_of(table))) return msg + "; did you mean '" + *near + "'?";
  return msg + "; known: " + util::join(names_of(table), ", ");
}

}  // namespace alloc
