#include "tool/preload_reach.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstring>

namespace tool {

namespace {
template <class Ehdr, class Phdr>
std::optional<bool> scan(const std::string& image) {
  if (image.size() < sizeof(Ehdr)) return std::nullopt;
  Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  if (eh.e_phentsize != sizeof(Phdr)) return std::nullopt;
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    size_t off = size_t(eh.e_phoff) + i * sizeof(Phdr);
    if (off + sizeof(Phdr) > image.size()) return std::nullopt;
    Phdr ph;
    std::memcpy(&ph, image.data() + off, sizeof ph);
    if (ph.p_type == PT_INTERP) return true;
  }
  return false;
}
}  // namespace

std::optional<bool> elf_has_interpreter(const std::string& image) {
  if (image.size() < EI_NIDENT || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0) return std::nullopt;
  // Only the host's byte order: a foreign-endian binary would not run here anyway.
  if (image[EI_CLASS] == ELFCLASS64) return scan<Elf64_Ehdr, Elf64_Phdr>(image);
  if (image[EI_CLASS] == ELFCLASS32) return scan<Elf32_Ehdr, Elf32_Phdr>(image);
  return std::nullopt;
}

std::optional<std::string> preload_blocker(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  if (st.st_mode & S_ISUID) return "it is setuid: ld.so ignores LD_PRELOAD paths for it";
  if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP)) return "it is setgid: ld.so ignores LD_PRELOAD paths for it";
  if (::getxattr(path.c_str(), "security.capability", nullptr, 0) > 0)
    return "it has file capabilities (getcap " + path + "): ld.so ignores LD_PRELOAD paths for it";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string image(64 * 1024, '\0');  // program headers sit right after the ELF header
  ssize_t n = ::pread(fd, image.data(), image.size(), 0);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  image.resize(size_t(n));
  auto interp = elf_has_interpreter(image);
  if (interp && !*interp) return "it is statically linked: ld.so never runs, so no allocator can be preloaded";
  return std::nullopt;
}

}  // namespace tool
