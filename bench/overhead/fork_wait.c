// The floor for a launcher that waits for the tool (as edashim does, to measure it): a static
// C program that forks, execs and wait4s, and exits with the tool's status.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char** argv) {
  (void)argc;
  pid_t pid = vfork();
  if (pid == 0) {
    execv(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  wait4(pid, &status, 0, &ru);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
