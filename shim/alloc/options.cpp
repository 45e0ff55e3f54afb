#include "alloc/options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "alloc/option_rules.hpp"
#include "alloc/registry.hpp"
#include "util/strings.hpp"

namespace alloc {
namespace {

// Decimal: a number written with digits and at most one '.', as jemalloc's fixed-point parser
// (fxp_parse) reads it; it takes no exponent, so 1e-05 is refused here rather than there.
enum class Kind { Bool, Int, BoolOrInt, Number, Decimal, Size, Word };

// What one option accepts. Ranges are the allocator's own where it has one (jemalloc's
// malloc_conf bounds, `ld.so --list-tunables`), else generous bounds that keep a value sane.
// The safe range is what an untrusted project file may set: values that cannot make the tool
// abort, fail its allocations or fill its stderr (glibc takes top_pad = 1 TiB, then fails the
// first heap growth: yosys exits 134). Sizes in the safe range bound a Kind::Size word too.
struct Grammar {
  Kind kind = Kind::Int;
  int64_t min = 0;
  int64_t max = INT64_MAX;
  std::vector<std::string> words;  // Kind::Word
  int64_t safe_min = INT64_MIN;    // within [min, max]: the whole range unless narrowed by safe()
  int64_t safe_max = INT64_MAX;
  const char* unsafe_why = nullptr;  // what a value outside the safe range can do
};

constexpr int64_t kInt32 = INT32_MAX;
constexpr int64_t kTiB = int64_t(1) << 40;
constexpr int64_t kHugePage = int64_t(2) << 20;  // jemalloc's HUGEPAGE on x86_64

Grammar boolean() { return {Kind::Bool, 0, 1, {}}; }
Grammar integer(int64_t min, int64_t max) { return {Kind::Int, min, max, {}}; }
Grammar bool_or_int(int64_t min, int64_t max) { return {Kind::BoolOrInt, min, max, {}}; }
Grammar number(int64_t min, int64_t max) { return {Kind::Number, min, max, {}}; }
Grammar decimal(int64_t min, int64_t max) { return {Kind::Decimal, min, max, {}}; }
Grammar size() { return {Kind::Size, 0, kTiB, {}}; }
Grammar words(std::vector<std::string> w) { return {Kind::Word, 0, 0, std::move(w)}; }
// `g` with the range an untrusted project file may set, and what a value beyond it can do.
Grammar safe(Grammar g, int64_t lo, int64_t hi, const char* why) {
  g.safe_min = lo;
  g.safe_max = hi;
  g.unsafe_why = why;
  return g;
}

constexpr int64_t kMiB = int64_t(1) << 20;
constexpr int64_t kGiB = int64_t(1) << 30;
constexpr const char* kFailsAllocations = "can make allocations fail";
constexpr const char* kHoldsMemory = "can hold that much memory";
// Freed memory given back to the system within a minute, what every default does by far: on a
// shared farm node memory a tool keeps is memory taken from everyone.
constexpr int64_t kMinuteMs = 60000;
constexpr const char* kKeepsFreed = "keeps freed memory from the system for longer than a minute, -1 for good";
Grammar delay_ms(int64_t min) { return safe(integer(min, kInt32), 0, kMinuteMs, kKeepsFreed); }

using Table = std::map<std::string, Grammar>;

}  // namespace

// What one family's options are (alloc/option_rules.hpp): the registry entry points here.
struct OptionRules {
  const Table& (*table)(const std::string& version);    // the options the installed version reads
  std::vector<const Table*> (*all_versions)();           // every version's, newest first
  std::optional<std::string> (*restricted)(const std::string& key);  // nullptr: none are
  std::optional<std::string> (*advice)(const std::string& key, const Table& table);  // for a wrong name
  bool versioned;                                        // names differ by version: messages say which
};

namespace {

const OptionRules* rules_of(const std::string& family);

// Huge OS pages reserved at start (GiB each): more than the kernel has fails with a warning.
Grammar huge_pages(int64_t min) { return safe(integer(min, 1024), min, 4, kHoldsMemory); }
Grammar reserve() { return safe(size(), 0, kGiB, kHoldsMemory); }

// mimalloc option names by series (mimalloc's src/options.c of 2.0.9, 2.1.x, 3.x). Delays are
// milliseconds. 2.1's purge delays take -1 for never; 2.0's decommit delays do not (a negative
// delay expires at once: src/segment.c adds it to the clock), so 2.0 starts them at 0 and
// "never decommit" is allow_decommit = false.
const Table& mimalloc_v20() {
  static const Table t = {
      {"show_errors", boolean()}, {"show_stats", boolean()}, {"verbose", boolean()},
      {"eager_commit", boolean()}, {"large_os_pages", boolean()}, {"reserve_huge_os_pages", huge_pages(0)},
      {"reserve_huge_os_pages_at", huge_pages(-1)}, {"reserve_os_memory", reserve()}, {"page_reset", boolean()},
      {"abandoned_page_decommit", boolean()}, {"abandoned_page_reset", boolean()},
      {"eager_commit_delay", integer(0, kInt32)}, {"decommit_delay", delay_ms(0)},
      {"reset_delay", delay_ms(0)}, {"use_numa_nodes", integer(0, 1024)},
      {"limit_os_alloc", boolean()}, {"os_tag", integer(0, 255)}, {"max_errors", integer(-1, kInt32)},
      {"max_warnings", integer(-1, kInt32)}, {"max_segment_reclaim", integer(0, kInt32)},
      {"allow_decommit", boolean()}, {"segment_decommit_delay", delay_ms(0)},
      {"decommit_extend_delay", delay_ms(0)}, {"destroy_on_exit", boolean()}};
  return t;
}

const Table& mimalloc_v21() {
  static const Table t = {
      {"show_errors", boolean()}, {"show_stats", boolean()}, {"verbose", boolean()},
      {"eager_commit", boolean()}, {"arena_eager_commit", bool_or_int(0, 2)}, {"purge_decommits", boolean()},
      {"allow_large_os_pages", boolean()}, {"reserve_huge_os_pages", huge_pages(0)},
      {"reserve_huge_os_pages_at", huge_pages(-1)}, {"reserve_os_memory", reserve()},
      {"abandoned_page_purge", boolean()}, {"eager_commit_delay", integer(0, kInt32)},
      {"purge_delay", delay_ms(-1)}, {"use_numa_nodes", integer(0, 1024)}, {"limit_os_alloc", boolean()},
      {"disallow_os_alloc", boolean()}, {"os_tag", integer(0, 255)}, {"max_errors", integer(-1, kInt32)},
      {"max_warnings", integer(-1, kInt32)}, {"max_segment_reclaim", integer(0, kInt32)},
      {"destroy_on_exit", boolean()}, {"arena_reserve", safe(size(), 0, 4 * kGiB, kHoldsMemory)}, 
      // Arenas purge after purge_delay times this: 100 keeps the product within 100 minutes.
      {"arena_purge_mult", safe(integer(0, kInt32), 0, 100, kKeepsFreed)},
      {"purge_extend_delay", delay_ms(-1)}, {"abandoned_reclaim_on_free", boolean()},
      {"disallow_arena_alloc", boolean()}, {"retry_on_oom", integer(0, kInt32)}};
  return t;
}

const Table& mimalloc_v3() {
  static const Table t = [] {
    Table t3 = mimalloc_v21();
    t3.erase("limit_os_alloc");
    for (auto n : {"visit_abandoned", "guarded_min", "guarded_max", "guarded_precise", "guarded_sample_rate",
                   "guarded_sample_seed", "target_segments_per_thread", "generic_collect", "page_reclaim_on_free",
                   "page_full_retain", "page_max_candidates", "pagemap_commit", "page_commit_on_demand",
                   "page_max_reclaim", "page_cross_thread_max_reclaim"})
      t3[n] = integer(0, kInt32);
    t3["page_full_retain"] = safe(integer(0, kInt32), 0, 64, kHoldsMemory);  // full pages kept per thread
    // Fewer address bits than the machine's (47 on x86_64) leave mimalloc no room to allocate.
    t3["max_vabits"] = safe(integer(0, 64), 47, 64, kFailsAllocations);
    return t3;
  }();
  return t;
}

const Table& mimalloc_options(const std::string& series) {
  if (util::starts_with(series, "2.0") || series == "2") return mimalloc_v20();
  if (util::starts_with(series, "2.")) return mimalloc_v21();
  return mimalloc_v3();
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
const Table& jemalloc_options(const std::string&) {
  // jemalloc 5.3 MALLOC_CONF keys worth setting from a profile (jemalloc's TUNING.md), with
  // the bounds of its malloc_conf parser (src/jemalloc.c of 5.3.0; README "Tuning for memory").
  // cache_oblivious is not among them: 5.3.0 prints it in stats but refuses it in MALLOC_CONF.
  static const Table jemalloc = {
      {"background_thread", boolean()},
      {"dirty_decay_ms", safe(integer(-1, 18446744072000), 0, kMinuteMs, kKeepsFreed)},
      {"muzzy_decay_ms", safe(integer(-1, 18446744072000), 0, kMinuteMs, kKeepsFreed)}, {"narenas", safe(integer(1, UINT32_MAX), 1, 1024, kHoldsMemory)},
      {"narenas_ratio", safe(decimal(0, 1024), 0, 16, kHoldsMemory)}, {"tcache", boolean()}, {"tcache_max", integer(0, 8 << 20)},
      {"thp", words({"default", "always", "never"})}, {"metadata_thp", words({"disabled", "auto", "always"})},
      {"percpu_arena", words({"disabled", "percpu", "phycpu"})}, {"oversize_threshold", integer(0, int64_t(1) << 62)},
      {"lg_extent_max_active_fit", integer(0, 64)}, {"retain", boolean()}, {"abort_conf", boolean()},
      {"confirm_conf", boolean()}, {"stats_print", boolean()}, {"max_background_threads", safe(integer(1, 4096), 1, 64, "starts that many threads")},
      {"dss", words({"disabled", "primary", "secondary"})},
      // How much each thread cache holds, and how fast it gives memory back (5.3's tcache GC).
      {"tcache_nslots_small_min", integer(1, 2048)}, {"tcache_nslots_small_max", integer(1, 2048)},
      {"tcache_nslots_large", integer(1, 2048)}, {"lg_tcache_nslots_mul", integer(-16, 16)},
      {"tcache_gc_incr_bytes", safe(integer(1024, INT64_MAX), 1024, 64 * kMiB, kHoldsMemory)},
      {"tcache_gc_delay_bytes", safe(integer(0, INT64_MAX), 0, 64 * kMiB, kHoldsMemory)},
      {"lg_tcache_flush_small_div", integer(1, 16)}, {"lg_tcache_flush_large_div", integer(1, 16)},
      // The experimental huge-page allocator (hpa) and its small extent cache (hpa_sec_*).
      {"hpa", boolean()}, {"hpa_slab_max_alloc", integer(4096, kHugePage)},
      {"hpa_hugification_threshold", integer(4096, kHugePage)}, {"hpa_hugification_threshold_ratio", decimal(0, 1)},
      {"hpa_hugify_delay_ms", integer(0, INT64_MAX)},
      {"hpa_min_purge_interval_ms", safe(integer(0, INT64_MAX), 0, kMinuteMs, kKeepsFreed)},
      {"hpa_dirty_mult", safe(decimal(0, 1024), 0, 1, kHoldsMemory)}, {"hpa_sec_nshards", integer(0, 4096)},
      {"hpa_sec_max_alloc", integer(4096, INT64_MAX)},
      {"hpa_sec_max_bytes", safe(integer(4096, INT64_MAX), 4096, 64 * kMiB, kHoldsMemory)},
      {"hpa_sec_bytes_after_flush", safe(integer(4096, INT64_MAX), 4096, 64 * kMiB, kHoldsMemory)}, {"hpa_sec_batch_fill_extra", integer(0, 512)}};
  return jemalloc;
}

const Table& tcmalloc_options(const std::string&) {
  // gperftools 2.10 environment variables, without the TCMALLOC_ prefix (the names its
  // libtcmalloc_minimal.so.4 holds; TCMALLOC_TRANSFER_NUM_OBJ is spelled so, not _OBJECTS).
  static const Table tcmalloc = {
      {"release_rate", safe(number(0, 1000), 1, 1000, "below 1 gives freed memory back to the system slowly, 0 never")}, {"aggressive_decommit", boolean()},
      {"max_total_thread_cache_bytes", safe(integer(0, kTiB), 0, 4 * kGiB, kHoldsMemory)},
      {"heap_limit_mb", integer(0, 1 << 30)},
      // Below its default (1 GiB), every larger allocation writes a report to the tool's stderr.
      {"large_alloc_report_threshold", safe(integer(0, int64_t(1) << 62), kGiB, int64_t(1) << 62, "writes a report to the tool's stderr for allocations above it")}, {"transfer_num_obj", integer(1, 8192)},
      {"disable_memory_release", boolean()}, {"skip_sbrk", boolean()}, {"skip_mmap", boolean()},
      {"sample_parameter", integer(0, kInt32)}};
  return tcmalloc;
}

const Table& tbbmalloc_options(const std::string&) {
  // oneTBB 2021 scalable allocator environment variables, without the TBB_MALLOC_ prefix.
  static const Table tbbmalloc = {{"use_huge_pages", boolean()}, {"set_huge_size_threshold", integer(0, kTiB)}};
  return tbbmalloc;
}

const Table& glibc_options(const std::string&) {
  // glibc 2.36 malloc tunables (`ld.so --list-tunables`), without the glibc.malloc. prefix.
  static const Table glibc = {
      // glibc takes any size (max 0xffffffffffffffff; it ignores mxfast past 160 and
      // tcache_count past 65535); the safe ranges keep what an untrusted file sets to sizes that
      // neither fail allocations nor hold memory for good. mmap_threshold past 32 MiB is taken
      // (measured on 2.36: 128 MiB keeps a 40 MiB block off mmap), as the shipped defaults use.
      {"arena_max", safe(integer(1, INT64_MAX), 1, 1024, kHoldsMemory)},
      {"arena_test", safe(integer(1, INT64_MAX), 1, 1024, kHoldsMemory)}, {"check", integer(0, 3)},
      {"hugetlb", safe(integer(0, INT64_MAX), 0, 1, "maps reserved huge pages")}, {"mmap_max", integer(0, kInt32)},
      {"mmap_threshold", safe(integer(0, INT64_MAX), 0, kGiB, kHoldsMemory)},
      {"mxfast", safe(integer(0, INT64_MAX), 0, 160, "glibc's fastbins hold at most 160 bytes")}, {"perturb", integer(0, 255)},
      {"tcache_count", safe(integer(0, INT64_MAX), 0, 1024, kHoldsMemory)},
      {"tcache_max", safe(integer(0, INT64_MAX), 0, 64 * 1024, kHoldsMemory)},
      {"tcache_unsorted_limit", safe(integer(0, INT64_MAX), 0, kInt32, "a count of chunks: more is no different")},
      // Every heap growth asks the kernel for this much more: 1 TiB fails the first one (exit 134).
      {"top_pad", safe(integer(0, INT64_MAX), 0, 64 * kMiB, kFailsAllocations)},
      {"trim_threshold", safe(integer(0, INT64_MAX), 0, kGiB, kHoldsMemory)}};
  return glibc;
}

std::string range(const Grammar& g) { return "from " + std::to_string(g.min) + " to " + std::to_string(g.max); }

// mimalloc reads a size as digits with an optional K, M or G (then B or iB), any case: "64M", "1GiB".
bool is_size_word(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && i < 15 && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0) return false;
  std::string unit = util::to_lower(s.substr(i));
  return unit.empty() || unit == "k" || unit == "m" || unit == "g" || unit == "kb" || unit == "mb" || unit == "gb" ||
         unit == "kib" || unit == "mib" || unit == "gib";
}

std::optional<std::string> check_grammar(const Grammar& g, const OptionValue& v) {
  auto shown = [&] {
    auto* s = std::get_if<std::string>(&v);
    return s ? "\"" + util::join(util::split(s->substr(0, 60), '\n'), "\\n") + (s->size() > 60 ? "...\"" : "\"")
             : render_option(v, true);
  };
  auto in_range = [&](int64_t i) { return i >= g.min && i <= g.max; };
  const int64_t* i = std::get_if<int64_t>(&v);
  switch (g.kind) {
    case Kind::Bool:
      if (v.index() == 0) return std::nullopt;
      return "is " + type_name(v) + " " + shown() + ", expected a boolean (true or false)";
    case Kind::Int:
      if (i && in_range(*i)) return std::nullopt;
      if (i) return "is " + shown() + ", expected an integer " + range(g);
      return "is " + type_name(v) + " " + shown() + ", expected an integer " + range(g);
    case Kind::BoolOrInt:
      if (v.index() == 0 || (i && in_range(*i))) return std::nullopt;
      return "is " + shown() + ", expected a boolean or an integer " + range(g);
    case Kind::Number: {
      auto* d = std::get_if<double>(&v);
      if ((i && in_range(*i)) || (d && std::isfinite(*d) && *d >= double(g.min) && *d <= double(g.max))) return std::nullopt;
      return "is " + shown() + ", expected a number " + range(g);
    }
    case Kind::Decimal: {
      auto* d = std::get_if<double>(&v);
      bool fits = (i && in_range(*i)) || (d && std::isfinite(*d) && *d >= double(g.min) && *d <= double(g.max));
      std::string text = fits ? render_option(v, true) : "";
      if (fits && text.find_first_not_of("0123456789.") == std::string::npos) return std::nullopt;
      return "is " + shown() + ", expected a decimal number " + range(g) + " written without an exponent";
    }
    case Kind::Size: {
      auto* s = std::get_if<std::string>(&v);
      if ((i && in_range(*i)) || (s && is_size_word(*s))) return std::nullopt;
      return "is " + shown() + ", expected a size: an integer " + range(g) +
             ", or digits with a K, M or G suffix such as \"64M\"";
    }
    case Kind::Word: {
      auto* s = std::get_if<std::string>(&v);
      for (const auto& w : g.words)
        if (s && *s == w) return std::nullopt;
      return "is " + shown() + ", expected one of: " + util::join(g.words, ", ");
    }
  }
  return std::nullopt;
}

std::vector<std::string> names_of(const Table& t) {
  std::vector<std::string> out;
  for (const auto& [k, _] : t) out.push_back(k);
  return out;
}

// The option's grammar in any version of the family (the newest that has it).
const Grammar* any_version(const std::string& family, const std::string& key) {
  const OptionRules* rules = rules_of(family);
  if (!rules) return nullptr;
  for (const Table* t : rules->all_versions())
    if (auto it = t->find(key); it != t->end()) return &it->second;
  return nullptr;
}

// The bytes a size word stands for ("64M", "1GiB": 1024-based, as mimalloc reads them); nullopt
// past INT64_MAX.
std::optional<int64_t> size_word_bytes(const std::string& s) {
  size_t i = 0;
  int64_t n = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (n > (INT64_MAX - 9) / 10) return std::nullopt;
    n = n * 10 + (s[i] - '0');
  }
  char unit = i < s.size() ? char(s[i] | 0x20) : 0;
  int shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : 0;
  if (n > (INT64_MAX >> shift)) return std::nullopt;
  return n << shift;
}

// Where a valid value falls, as a number to hold against the safe range; nullopt for words
// and booleans (every one of those an option accepts is safe).
std::optional<double> magnitude(const OptionValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* s = std::get_if<std::string>(&v)) {
    if (!is_size_word(*s)) return std::nullopt;
    auto b = size_word_bytes(*s);
    return b ? double(*b) : 1e300;
  }
  return std::nullopt;
}

bool ends_with(const std::string& key, const std::string& tail) {
  return key.size() >= tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
}

// Restricted options by name (lowercase), so unknown names of a restricted kind are caught too.
std::optional<std::string> jemalloc_restricted(const std::string& key) {
  // prof_prefix and friends write heap profiles anywhere; prof_leak_error turns exit 0 into
  // 1; abort*, xmalloc and zero_realloc:abort abort; *_conf aborts on or dumps the config.
  if (util::starts_with(key, "prof") || util::starts_with(key, "lg_prof")) return "writes heap profiles or changes the exit status";
  if (util::starts_with(key, "abort") || key == "xmalloc" || key == "zero_realloc") return "can abort the tool";
  if (ends_with(key, "_conf")) return "aborts the tool on a bad setting, or dumps the configuration";
  if (util::starts_with(key, "stats_print") || key == "utrace" || key == "junk") return "writes reports or traces";
  return std::nullopt;
}

std::optional<std::string> mimalloc_restricted(const std::string& key) {
  // Past the reserved memory, allocations fail: the tool dies of an out-of-memory error.
  if (key == "disallow_os_alloc" || key == "limit_os_alloc") return "can make every allocation fail";
  if (key == "allow_decommit") return "false keeps freed memory from the system for good";
  return std::nullopt;
}

std::optional<std::string> tcmalloc_restricted(const std::string& key) {
  if (key == "heap_limit_mb") return "makes allocations fail past a limit";
  if (key == "disable_memory_release") return "keeps freed memory from the system for good";
  if (key == "skip_sbrk" || key == "skip_mmap") return "can leave tcmalloc no memory to allocate";
  // memfs_*: allocate from files on a hugetlbfs path; devmem_*: from /dev/mem.
  if (util::starts_with(key, "memfs") || util::starts_with(key, "devmem")) return "allocates from files or devices";
  if (util::starts_with(key, "heap") || ends_with(key, "profile")) return "writes heap profiles";
  return std::nullopt;
}

std::optional<std::string> glibc_restricted(const std::string& key) {
  if (key == "check") return "aborts the tool on a heap inconsistency";
  return std::nullopt;
}

// What to write instead of a name the installed version does not have, when more can be said
// than the nearest name.
std::optional<std::string> mimalloc_advice(const std::string& key, const Table& table) {
  for (const auto& [old_name, new_name] : mimalloc_renames()) {
    if (key == new_name && table.count(old_name)) return "this version calls it '" + old_name + "'";
    if (key == old_name && table.count(new_name)) return "this version calls it '" + new_name + "'";
  }
  return std::nullopt;
}

std::optional<std::string> jemalloc_advice(const std::string& key, const Table&) {
  if (key == "cache_oblivious") return std::string("jemalloc 5.3.0 fixes it when built (MALLOC_CONF refuses it: \"Invalid conf pair\")");
  return std::nullopt;
}

std::optional<std::string> tcmalloc_advice(const std::string& key, const Table&) {
  // The name gperftools' docs and blog posts use, not the variable 2.10 reads.
  if (key == "transfer_num_objects") return std::string("gperftools reads TCMALLOC_TRANSFER_NUM_OBJ: write 'transfer_num_obj'");
  return std::nullopt;
}

std::vector<const Table*> mimalloc_versions() { return {&mimalloc_v3(), &mimalloc_v21(), &mimalloc_v20()}; }
std::vector<const Table*> jemalloc_versions() { return {&jemalloc_options("")}; }
std::vector<const Table*> tcmalloc_versions() { return {&tcmalloc_options("")}; }
std::vector<const Table*> tbbmalloc_versions() { return {&tbbmalloc_options("")}; }
std::vector<const Table*> glibc_versions() { return {&glibc_options("")}; }

const OptionRules* rules_of(const std::string& family) {
  const Family* f = find_family(family);
  return f ? f->options : nullptr;
}

}  // namespace

std::optional<SafeRange> untrusted_range(const std::string& family, const std::string& name) {
  if (restricted_option(family, name)) return std::nullopt;
  const Grammar* g = any_version(family, util::to_lower(name));
  if (!g) return std::nullopt;
  return SafeRange{std::max(g->min, g->safe_min), std::min(g->max, g->safe_max), g->unsafe_why ? g->unsafe_why : ""};
}

std::optional<std::string> untrusted_refusal(const std::string& family, const std::string& name, const OptionValue& value) {
  if (auto why = restricted_option(family, name)) return why;
  auto range = untrusted_range(family, name);
  auto m = magnitude(value);
  if (!range || !m || (*m >= double(range->min) && *m <= double(range->max))) return std::nullopt;
  return "is " + render_option(value, true) + ", outside " + std::to_string(range->min) + " to " +
         std::to_string(range->max) + ", what an untrusted file may set: " + range->why;
}

bool known_option(const std::string& family, const std::string& name) {
  return any_version(family, util::to_lower(name)) != nullptr;
}

const std::vector<std::string>& option_families() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : families()) out.emplace_back(f.name);
    return out;
  }();
  return names;
}

std::optional<std::string> check_value(const std::string& family, const std::string& name, const OptionValue& value) {
  const Grammar* g = any_version(family, util::to_lower(name));
  if (!g) return std::nullopt;
  if (auto bad = check_grammar(*g, value)) return "[" + family + "] " + name + " " + *bad;
  return std::nullopt;
}

std::optional<std::string> check_option(const std::string& family, const std::string& version,
                                        const std::string& name, const OptionValue& value) {
  std::string key = util::to_lower(name);
  const OptionRules* rules = rules_of(family);
  static const Table none;
  const Table& table = rules ? rules->table(version) : none;
  auto it = table.find(key);
  if (it != table.end()) {
    if (auto bad = check_grammar(it->second, value)) return "[" + family + "] " + name + " " + *bad;
    return std::nullopt;
  }
  std::string where = rules && rules->versioned && !version.empty() ? " in the installed " + family + " " + version : "";
  std::string msg = "[" + family + "] has no option '" + name + "'" + where;
  if (rules && rules->advice)
    if (auto advice = rules->advice(key, table)) return msg + "; " + *advice;
  if (auto near = util::nearest(key, names_of(table))) return msg + "; did you mean '" + *near + "'?";
  return msg + "; known: " + util::join(names_of(table), ", ");
}

std::optional<std::string> restricted_option(const std::string& family, const std::string& name) {
  const OptionRules* rules = rules_of(family);
  if (!rules || !rules->restricted) return std::nullopt;
  return rules->restricted(util::to_lower(name));
}

const OptionRules kMimallocOptions{mimalloc_options, mimalloc_versions, mimalloc_restricted, mimalloc_advice, true};
const OptionRules kJemallocOptions{jemalloc_options, jemalloc_versions, jemalloc_restricted, jemalloc_advice, false};
const OptionRules kTcmallocOptions{tcmalloc_options, tcmalloc_versions, tcmalloc_restricted, tcmalloc_advice, false};
const OptionRules kTbbmallocOptions{tbbmalloc_options, tbbmalloc_versions, nullptr, nullptr, false};
const OptionRules kGlibcOptions{glibc_options, glibc_versions, glibc_restricted, nullptr, false};

}  // namespace alloc
