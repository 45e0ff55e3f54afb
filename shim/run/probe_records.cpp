#include "run/probe_records.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "alloc/allocators.hpp"
#include "run/scratch.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace run {
namespace {

std::optional<long> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (*end) return std::nullopt;
  return v;
}

}  // namespace

std::vector<ProbedProcess> parse_probe_records(std::string_view text) {
  std::vector<ProbedProcess> out;
  std::map<long, size_t> running;  // pid -> index of its current image (no exit record yet)
  for (const auto& line : util::split(text, '\n')) {
    auto f = util::split(line, '\t');
    if (f.empty() || f[0].size() != 1) continue;
    char type = f[0][0];
    if ((type == 'S' || type == 'F') && f.size() == 5) {
      auto pid = number(f[1]), ppid = number(f[2]);
      auto exe = util::tsv_unescape(f[3]), object = util::tsv_unescape(f[4]);
      if (!pid || !ppid || !exe || !object) continue;
      // A second start for a pid still running: the earlier image exec'd into this one
      // (/bin/sh -c 'exec abc ...'). It allocated with its own binding, so it stays listed.
      if (auto it = running.find(*pid); it != running.end() && type == 'S') out[it->second].end = "exec";
      ProbedProcess p;
      p.pid = *pid;
      p.ppid = *ppid;
      p.exe = *exe;
      p.malloc_object = *object;
      p.forked = type == 'F';
      running[*pid] = out.size();
      out.push_back(std::move(p));
    } else if (type == 'E' && f.size() == 4) {
      auto pid = number(f[1]), hwm = number(f[2]), peak = number(f[3]);
      if (!pid || !hwm || !peak) continue;
      auto it = running.find(*pid);
      if (it == running.end()) continue;
      auto& p = out[it->second];
      p.end = "exit";
      if (*hwm >= 0) p.vm_hwm_kb = *hwm;
      if (*peak >= 0) p.vm_peak_kb = *peak;
      running.erase(it);
    }
  }
  return out;
}

std::vector<std::string> not_applied(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& line : util::split(text, '\n')) {
    auto f = util::split(line, '\t');
    if (f.size() != 6 || f[0] != "L" || !number(f[1])) continue;
    auto program = util::tsv_unescape(f[2]), loader = util::tsv_unescape(f[3]);
    auto missing = util::tsv_unescape(f[4]), has = util::tsv_unescape(f[5]);
    if (!program || !loader || !missing || !has) continue;
    // An empty loader: a static program, which the hook cannot follow (probe/hook.c).
    std::string entry = loader->empty()
                            ? "what " + *program + " starts: it is statically linked, so the exec hook cannot follow "
                              "it and edashim's libraries left its LD_PRELOAD (tools below it are reached through "
                              "their links only)"
                            : *program + ": loader " + *loader + ", needs " + *missing + ", has " +
                                  (has->empty() ? "none" : *has);
    // make starting the same program a thousand times says it once.
    if (std::find(out.begin(), out.end(), entry) == out.end()) out.push_back(std::move(entry));
  }
  return out;
}

std::string exec_without_us(std::string_view text, long pid) {
  std::string program;
  for (const auto& line : util::split(text, '\n')) {
    auto f = util::split(line, '\t');
    if (f.size() != 6 || f[0] != "L" || number(f[1]) != std::optional<long>(pid)) continue;
    if (auto p = util::tsv_unescape(f[2])) program = *p;
  }
  return program;
}

std::string malloc_provider(const ProbedProcess& p) {
  if (p.malloc_object == p.exe) return "executable";
  if (auto family = alloc::allocator_of_library(p.malloc_object); !family.empty()) return family;
  std::string base = util::basename(p.malloc_object);
  if (util::starts_with(base, "libc.so") || util::starts_with(base, "libc-")) return "glibc";
  return base;
}

Verification verify_allocator(const std::vector<ProbedProcess>& processes, const std::string& requested,
                              const std::string& launcher) {
  size_t tools = 0;
  for (const auto& p : processes) tools += launcher.empty() || p.exe != launcher;
  if (tools == 0) return {false, "no process recorded which allocator served malloc"};
  std::string want = requested == "system" ? "glibc" : requested;
  std::string want_real;
  if (!requested.empty() && requested[0] == '/') want_real = util::real_path(requested).value_or(requested);
  for (const auto& p : processes) {
    if (!launcher.empty() && p.exe == launcher) continue;
    bool ok = want_real.empty() ? malloc_provider(p) == want
                                : util::real_path(p.malloc_object).value_or(p.malloc_object) == want_real;
    if (!ok)
      return {false, "pid " + std::to_string(p.pid) + " (" + p.exe + ") got malloc from " + p.malloc_object + ", not " +
                         (want_real.empty() ? want : want_real)};
  }
  return {true, std::to_string(tools) + " process(es) recorded, all with malloc from " +
                    (want_real.empty() ? want : want_real)};
}

ProbeFile make_probe_file(const std::string& base) {
  ProbeFile f;
  // Named and locked like scratch directories, so that run::sweep_stale_scratch removes what a
  // killed edashim left behind, and nothing of a live run.
  auto d = make_locked_dir(base, sweepable_prefix(::getuid()));
  if (!d) {
    f.error = d.error();
    return f;
  }
  f.dir = d->path;
  f.lock_fd = std::move(d->lock_fd);
  f.file = d->path + "/probe";
  util::Fd created(::open(f.file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!created) {
    f.error = "cannot create " + f.file + ": " + std::strerror(errno);
    ::rmdir(f.dir.c_str());
    f.lock_fd.reset();
    return ProbeFile{{}, {}, f.error, {}};
  }
  return f;
}

std::string read_and_remove_probe_file(ProbeFile& f) {
  std::string text = read_probe_file(f);
  remove_probe_file(f);
  return text;
}

std::string read_probe_file(const ProbeFile& f) {
  return f.file.empty() ? std::string() : util::read_file(f.file, 64 << 20).value_or("");
}

void remove_probe_file(ProbeFile& f) {
  if (f.file.empty()) return;
  util::remove_tree(f.dir);
  f.lock_fd.reset();  // after the removal: no sweep can take it half-deleted
}

}  // namespace run
