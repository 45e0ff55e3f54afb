// The floor for a launcher that execs in place: a static C program that only calls execv.
#include <unistd.h>
int main(int argc, char** argv) {
  (void)argc;
  execv(argv[1], argv + 1);
  return 127;
}
