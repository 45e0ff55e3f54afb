#include "tool/elf_note.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <vector>

namespace tool {

std::optional<std::string> build_id(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> result;
  Elf64_Ehdr eh;
  if (::pread(fd, &eh, sizeof eh, 0) == sizeof eh && eh.e_ident[EI_MAG0] == ELFMAG0 && eh.e_ident[EI_MAG1] == ELFMAG1 &&
      eh.e_ident[EI_MAG2] == ELFMAG2 && eh.e_ident[EI_MAG3] == ELFMAG3 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 256) {
    std::vector<Elf64_Phdr> ph(eh.e_phnum);
    ssize_t want = ssize_t(sizeof(Elf64_Phdr) * eh.e_phnum);
    if (::pread(fd, ph.data(), size_t(want), off_t(eh.e_phoff)) == want) {
      for (const auto& p : ph) {
        if (p.p_type != PT_NOTE || p.p_filesz > 4096) continue;
        std::vector<unsigned char> buf(p.p_filesz);
        if (::pread(fd, buf.data(), buf.size(), off_t(p.p_offset)) != ssize_t(buf.size())) continue;
        size_t off = 0;
        while (off + sizeof(Elf64_Nhdr) <= buf.size()) {
          Elf64_Nhdr nh;
          __builtin_memcpy(&nh, buf.data() + off, sizeof nh);
          // Sizes come from the file: align in 64 bits, where `+ 3` cannot wrap (fuzz_elf).
          size_t name_at = off + sizeof nh, desc_at = name_at + ((size_t(nh.n_namesz) + 3) & ~size_t(3));
          size_t next = desc_at + ((size_t(nh.n_descsz) + 3) & ~size_t(3));
          if (next > buf.size()) break;
          if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4) {
            static const char hex[] = "0123456789abcdef";
            std::string id;
            for (size_t i = 0; i < nh.n_descsz; ++i) {
              id += hex[buf[desc_at + i] >> 4];
              id += hex[buf[desc_at + i] & 15];
            }
            result = id;
            break;
          }
          off = next;
        }
        if (result) break;
      }
    }
  }
  ::close(fd);
  return result;
}

}  // namespace tool
