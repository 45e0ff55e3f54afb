#pragma once
// A scratch directory for one test, removed at the end.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "util/fs.hpp"

struct TempDir {
  std::string path;
  TempDir() {
    char templ[] = "/tmp/edashim-test-XXXXXX";
    path = ::mkdtemp(templ);
    path = util::real_path(path).value_or(path);
  }
  ~TempDir() { util::remove_tree(path); }
  std::string write(const std::string& rel, const std::string& content) const {
    std::string full = path + "/" + rel;
    util::make_dirs(util::dirname(full));
    std::ofstream(full) << content;
    return full;
  }
};
