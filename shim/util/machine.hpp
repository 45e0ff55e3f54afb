#pragma once
// The machine a run ran on, as far as it decides how fast a tool runs: the CPU model, the
// kernel release and the number of online CPUs. For grouping runs by machine.
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

// This machine's CPU model (nullopt: unknown), the one reader of it for the run log, the learned
// layer, bench's record and recommend. Read from /proc/cpuinfo once and remembered in `cache`
// (when given) by the file's identity, as below.
std::optional<std::string> cpu_model(FactCache* cache);

// The machine now. The CPU model is read from /proc/cpuinfo once and remembered in `cache` by
// the file's identity (procfs gives it a new inode time at each boot): reading the file costs
// ~25 us (the kernel formats every CPU's entry), and cpuid's brand string more in a VM (~34 us
// for its four leaves on a Firecracker VM: each cpuid traps to the hypervisor); a cache hit is
// one stat().
Machine current_machine(FactCache* cache);

// This machine's name as gethostname(2) gives it (the short name or the FQDN, as the system is
// configured; "" when it fails): the log's "host" field and a log path's {host}.
std::string host_name();

}  // namespace util
