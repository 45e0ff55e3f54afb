#pragma once
// Finding the real tool behind a shim name: the first executable of that name on PATH that
// is not edashim itself (by device and inode, by build-id for copies, or by the chain of
// edashim binaries already in this process tree).
#include <string>
#include <vector>

#include "util/fs.hpp"

namespace tool {

// How to recognise edashim on disk: this binary, and the shim when this is the `edashim`
// command (edashim-cli), since tool links point to the shim.
struct SelfIdentity {
  struct Image {
    std::string path;
    util::FileId id;
    long long size = -1;
  };
  std::vector<Image> images;
  std::vector<std::string> chain;  // real paths of edashim binaries already active (env marker)
  static SelfIdentity current(const char* chain_env);
  bool same_file(const util::FileId& id) const;
};

struct Resolution {
  std::string path;                   // empty: not found
  std::vector<std::string> searched;  // directories looked in, for the not-found message
  std::vector<std::string> skipped;   // edashim links or copies passed over
  // As execvp: files of that name that are not executable (the first; exec would give EACCES),
  // and candidates whose exec gives ENOENT (a #! naming a missing interpreter), passed over.
  std::string denied;
  std::vector<std::string> passed_over;
  // 126 and "NAME: FILE: Permission denied" where nothing runnable was found but `denied`, as a
  // shell and execvp say; else 127 and not_found_message.
  int status_if_not_found() const { return denied.empty() ? 127 : 126; }
};

// True when `path` is edashim: the same file, a copy of it, or one already in the chain.
bool is_edashim(const std::string& path, const SelfIdentity& self);

// The first executable `name` on `path_env` that is not edashim, nor one of `passed_over`.
Resolution resolve(const std::string& name, const std::string& path_env, const SelfIdentity& self,
                   const std::vector<std::string>& passed_over = {});

// `yosys: command not found` in the style of a shell, with what was searched; or, with a file
// of that name that cannot be executed, "yosys: FILE: Permission denied".
std::string not_found_message(const std::string& name, const Resolution& r);

}  // namespace tool
