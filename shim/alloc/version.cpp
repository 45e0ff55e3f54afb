#include "alloc/version.hpp"

#include <elf.h>
#include <sys/stat.h>

#include <cctype>
#include <cstring>
#include <algorithm>

#include "alloc/allocators.hpp"
#include "alloc/registry.hpp"
#include "elf/elf_image.hpp"
#include "util/fs.hpp"
#include "util/mapped_file.hpp"
#include "util/strings.hpp"

namespace alloc {
namespace {

// The integer mi_version() returns, from its machine code: `mov $N, %eax; ret` on x86-64,
// `mov w0, #N; ret` on AArch64. Anything else (another compiler's idea) gives nullopt.
std::optional<uint32_t> constant_returned_by(std::string_view image, std::string_view function) {
  auto sym = elf::find_dynamic_symbol(image, function);
  auto info = elf::parse(image);
  if (!sym || !sym->defined || !info) return std::nullopt;
  auto off = elf::file_offset(image, sym->value);
  // Written so that nothing wraps: *off is at most image.size() (elf::file_offset), but the
  // check should not rest on that.
  if (!off || *off > image.size() || image.size() - *off < 8) return std::nullopt;
  auto code = reinterpret_cast<const unsigned char*>(image.data() + *off);
  if (info->machine == EM_X86_64 && code[0] == 0xb8 && code[5] == 0xc3) {
    uint32_t v;
    std::memcpy(&v, code + 1, 4);
    return v;
  }
  if (info->machine == EM_AARCH64) {
    uint32_t insn, ret;
    std::memcpy(&insn, code, 4);
    std::memcpy(&ret, code + 4, 4);
    if ((insn & 0xffe0001f) == 0x52800000 && ret == 0xd65f03c0) return (insn >> 5) & 0xffff;
  }
  return std::nullopt;
}

// The text after `marker` up to the first character that cannot be part of a version.
std::string version_after(std::string_view image, std::string_view marker) {
  auto pos = image.find(marker);
  if (pos == std::string_view::npos) return "";
  pos += marker.size();
  while (pos < image.size() && (image[pos] == ' ' || image[pos] == '\t')) ++pos;
  size_t end = pos;
  while (end < image.size() && end - pos < 16 && (std::isdigit((unsigned char)image[end]) || image[end] == '.')) ++end;
  std::string v(image.substr(pos, end - pos));
  return !v.empty() && std::isdigit((unsigned char)v[0]) ? v : "";
}

std::string jemalloc_version(std::string_view image) {
  // "5.3.0-0-g<40 hex>": the git-describe string jemalloc's build writes into JEMALLOC_VERSION.
  // Walks back over digits ending before i; true if 1 to 9 of them (a longer run is not a
  // version part: fuzz_version found a 60-digit "version").
  auto digits = [&](size_t& i) {
    size_t start = i;
    while (i > 0 && start - i <= 9 && std::isdigit((unsigned char)image[i - 1])) --i;
    return i < start && start - i <= 9;
  };
  for (size_t pos = image.find("-g"); pos != std::string_view::npos; pos = image.find("-g", pos + 2)) {
    if (pos + 2 + 40 > image.size()) break;
    if (!std::all_of(image.begin() + pos + 2, image.begin() + pos + 42, [](char c) { return std::isxdigit((unsigned char)c); }))
      continue;
    size_t i = pos;
    if (!digits(i) || i == 0 || image[i - 1] != '-') continue;
    size_t version_end = --i;
    bool ok = true;
    for (int part = 0; part < 3 && ok; ++part) {
      ok = digits(i);
      if (ok && part < 2) ok = i > 0 && image[--i] == '.';
    }
    if (ok) return std::string(image.substr(i, version_end - i));
  }
  return "";
}

}  // namespace

std::string version_from_image(const std::string& family, std::string_view image) {
  const Family* f = find_family(family);
  if (!f) return "";
  switch (f->probe) {
    case VersionProbe::kNone:
      return "";
    case VersionProbe::kReturnedConstant: {
      auto v = constant_returned_by(image, f->version_marker);
      if (!v || *v == 0 || *v > 100000) return "";
      // MI_MALLOC_VERSION is major*100 + minor*10 + patch (2.0.9 = 209, 3.1.5 = 315).
      return std::to_string(*v / 100) + "." + std::to_string(*v / 10 % 10) + "." + std::to_string(*v % 10);
    }
    case VersionProbe::kGitDescribe:
      return jemalloc_version(image);
    case VersionProbe::kAfterMarker:
      return version_after(image, f->version_marker);
  }
  return "";
}

std::string detect_version(const std::string& path, util::FactCache& cache) {
  const Family* f = family_of_library(path);
  std::string family = f ? std::string(f->name) : "";
  std::string real = util::real_path(path).value_or(path);
  struct stat st;
  if (family.empty() || ::stat(real.c_str(), &st) != 0) return version_of(path);
  auto stamp = util::FileStamp::of(st);
  if (auto facts = cache.get(stamp); facts && facts->count("version")) {
    const auto& v = facts->at("version");
    return v.empty() ? version_of(path) : v;
  }
  std::string version;
  util::MappedFile file;
  if (file.open(real)) version = version_from_image(family, file.bytes());
  // tbbmalloc's proxy has no version string of its own: the scalable allocator it loads does.
  if (version.empty() && f && !f->version_library.empty()) {
    if (auto info = elf::parse(file.bytes()))
      for (const auto& needed : info->needed) {
        util::MappedFile lib;
        if (util::starts_with(needed, f->version_library) && lib.open(util::dirname(real) + "/" + needed))
          version = version_from_image(family, lib.bytes());
      }
  }
  cache.put(stamp, {{"kind", "allocator"}, {"version", version}, {"path", real}});
  cache.save();
  return version.empty() ? version_of(path) : version;
}

}  // namespace alloc
