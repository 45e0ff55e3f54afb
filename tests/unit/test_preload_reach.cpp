#include <catch2/catch.hpp>
#include <elf.h>
#include <sys/stat.h>

#include <cstring>

#include "temp_dir.hpp"
#include "tool/preload_reach.hpp"

namespace {
// A minimal 64-bit ELF image with the given program header types.
std::string elf_image(const std::vector<uint32_t>& types) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_phoff = sizeof eh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = uint16_t(types.size());
  std::string out(reinterpret_cast<const char*>(&eh), sizeof eh);
  for (auto t : types) {
    Elf64_Phdr ph{};
    ph.p_type = t;
    out.append(reinterpret_cast<const char*>(&ph), sizeof ph);
  }
  return out;
}
}  // namespace

TEST_CASE("An ELF image with PT_INTERP is dynamically linked, one without it static", "[preload_reach]") {
  CHECK(tool::elf_has_interpreter(elf_image({PT_PHDR, PT_INTERP, PT_LOAD})) == true);
  CHECK(tool::elf_has_interpreter(elf_image({PT_LOAD, PT_NOTE})) == false);
}

TEST_CASE("Not ELF, or cut short: no verdict", "[preload_reach]") {
  CHECK_FALSE(tool::elf_has_interpreter("#!/bin/sh\necho hi\n"));
  auto img = elf_image({PT_LOAD, PT_INTERP});
  CHECK_FALSE(tool::elf_has_interpreter(img.substr(0, img.size() - 10)));
  CHECK_FALSE(tool::elf_has_interpreter(""));
}

TEST_CASE("preload_blocker: a dynamic binary and a script pass, static and setuid do not", "[preload_reach]") {
  CHECK_FALSE(tool::preload_blocker("/proc/self/exe"));  // the unit tests are dynamically linked
  TempDir t;
  auto script = t.write("tool.sh", "#!/bin/sh\n");
  ::chmod(script.c_str(), 0755);
  CHECK_FALSE(tool::preload_blocker(script));
  auto stat_bin = t.write("static", elf_image({PT_LOAD}));
  ::chmod(stat_bin.c_str(), 0755);
  auto why = tool::preload_blocker(stat_bin);
  REQUIRE(why);
  CHECK(why->find("statically linked") != std::string::npos);
  auto suid = t.write("suid", elf_image({PT_INTERP}));
  ::chmod(suid.c_str(), 04755);
  why = tool::preload_blocker(suid);
  REQUIRE(why);
  CHECK(why->find("setuid") != std::string::npos);
}
