#pragma once
// The machine a run ran on, as far as it decides how fast a tool runs: the CPU model, the
// kernel release and the number of online CPUs. For grouping runs by machine (issue 15).
#include <optional>
#include <string>
#include <string_view>

namespace util {

class FactCache;

struct Machine {
  std::optional<std::string> cpu;  // "AMD EPYC 7763 64-Core Processor"; nullopt: unknown
  std::string kernel;              // uname -r
  long cores = 0;                  // online CPUs
};

// The first "model name" of a /proc/cpuinfo text, trimmed (what lscpu shows); also the
// "Processor"/"cpu model"/"uarch" lines other architectures use.
std::optional<std::string> cpu_model_of_cpuinfo(std::string_view text);

// The CPU brand string from the cpuid instruction, trimmed: the text the kernel copies into
// /proc/cpuinfo's "model name", at a fraction of a microsecond instead of ~60 us (the kernel
// formats every CPU's entry). nullopt off x86 or when the CPU has none.
std::optional<std::string> cpu_model_of_cpuid();

// The machine now: cpuid where it can, else /proc/cpuinfo, remembered in `cache` by the
// file's identity (procfs gives it a new inode time at each boot).
Machine current_machine(FactCache* cache);

}  // namespace util
