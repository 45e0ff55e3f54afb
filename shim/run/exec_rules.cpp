#include "run/exec_rules.hpp"

#include <unistd.h>

#include <cerrno>

namespace run {

std::vector<std::string> shell_argv(const std::string& path, const std::vector<std::string>& argv) {
  std::vector<std::string> out{"/bin/sh", path};
  if (argv.size() > 1) out.insert(out.end(), argv.begin() + 1, argv.end());
  return out;
}

void exec_like_execvp(const char* path, char* const argv[], char* const sh_argv[], char* const envp[]) {
  ::execve(path, argv, envp);
  if (errno == ENOEXEC) ::execve(sh_argv[0], sh_argv, envp);
}

}  // namespace run
