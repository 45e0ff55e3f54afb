#pragma once
// How a shell, make or execvp(3) start a program, so that edashim starts the tool the same way:
// a file without `#!` that the kernel refuses (ENOEXEC) is run by /bin/sh.
#include <string>
#include <vector>

namespace run {

// The argv execvp gives /bin/sh for a file the kernel would not run: the shell, the file, then
// the arguments after argv[0] (glibc's maybe_script_execute; argv[0] itself is not passed on).
std::vector<std::string> shell_argv(const std::string& path, const std::vector<std::string>& argv);

// execve(path), and on ENOEXEC execve(/bin/sh, sh_argv) as execvp does. Returns only on
// failure, with errno set. Allocates nothing: safe in a vfork child.
void exec_like_execvp(const char* path, char* const argv[], char* const sh_argv[], char* const envp[]);

}  // namespace run
