#pragma once
// Shared by the fuzz targets: a private directory for files they must write, made once.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "util/fs.hpp"

inline const std::string& fuzz_dir() {
  static const std::string dir = [] {
    // fuzz/run.sh gives a directory it removes itself: libFuzzer ends a timed run without
    // running atexit handlers, which left one directory per run in /dev/shm.
    std::string base = std::getenv("EDASHIM_FUZZ_TMP") ? std::getenv("EDASHIM_FUZZ_TMP") : "/dev/shm";
    std::string templ = base + "/edashim-fuzz-XXXXXX";
    char templ_tmp[] = "/tmp/edashim-fuzz-XXXXXX";
    const char* d = ::mkdtemp(templ.data());
    if (!d) d = ::mkdtemp(templ_tmp);
    if (!d) std::abort();
    std::string path = d;
    std::atexit([] { util::remove_tree(fuzz_dir()); });
    return path;
  }();
  return dir;
}

inline void write_whole(const std::string& path, const uint8_t* data, size_t size) {
  util::make_dirs(util::dirname(path), 0700);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
}
