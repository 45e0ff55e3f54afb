#pragma once
// The installed version of an allocator library, read from the library file itself: its file
// name says "2" for both mimalloc 2.0 and 2.1, and nothing at all of jemalloc's 5.3.0, while the
// option names a profile may use depend on the exact series.
#include <string>
#include <string_view>

#include "util/fact_cache.hpp"

namespace alloc {

// Pure: the version the library's bytes state, or "" when they don't say.
//   mimalloc:  mi_version() returns MI_MALLOC_VERSION (209 = 2.0.9); its first instruction holds it
//   jemalloc:  the JEMALLOC_VERSION string ("5.3.0-0-g54eaed1d...")
//   tcmalloc:  "gperftools 2.10"
//   tbbmalloc: "TBBmalloc: VERSION\t\t2021.8" (in libtbbmalloc.so.2, which the proxy loads)
std::string version_from_image(const std::string& family, std::string_view image);

// The version of the allocator library at `path`: from its bytes (remembered in `cache` by the
// file's identity), else from its file name as alloc::version_of() reads it.
std::string detect_version(const std::string& path, util::FactCache& cache);

}  // namespace alloc
