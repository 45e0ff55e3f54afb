/* See elf_read.h. The file's structures are copied out with memcpy: nothing in it is aligned
 * for us, and the callback may hand back bytes from anywhere. */
#include "elf_read.h"

#include <elf.h>
#include <string.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define EDH_ELF_DATA ELFDATA2LSB
#else
#define EDH_ELF_DATA ELFDATA2MSB
#endif

int edh_elf_read(const struct edh_elf* e, unsigned long long off, void* buf, unsigned long n) {
  return e->rd(e->ctx, off, buf, n) == (long)n;
}

int edh_elf_header(struct edh_elf* e, edh_read_fn rd, void* ctx) {
  Elf64_Ehdr e64;
  memset(e, 0, sizeof *e);
  e->rd = rd;
  e->ctx = ctx;
  long got = rd(ctx, 0, &e64, sizeof e64);
  if (got < EI_NIDENT || memcmp(e64.e_ident, ELFMAG, SELFMAG) != 0 || e64.e_ident[EI_DATA] != EDH_ELF_DATA) return 0;
  if (e64.e_ident[EI_CLASS] == ELFCLASS64) {
    if (got < (long)sizeof e64) return 0;
    e->is64 = 1;
    e->type = e64.e_type;
    e->machine = e64.e_machine;
    e->phoff = e64.e_phoff;
    e->shoff = e64.e_shoff;
    e->phnum = e64.e_phnum;
    e->phentsize = e64.e_phentsize;
    e->shnum = e64.e_shnum;
    e->shentsize = e64.e_shentsize;
    e->phsize = sizeof(Elf64_Phdr);
    e->shsize = sizeof(Elf64_Shdr);
    e->dynsize = sizeof(Elf64_Dyn);
    e->symsize = sizeof(Elf64_Sym);
    return 1;
  }
  if (e64.e_ident[EI_CLASS] == ELFCLASS32) {
    Elf32_Ehdr e32;
    if (got < (long)sizeof e32) return 0;
    memcpy(&e32, &e64, sizeof e32);
    e->is64 = 0;
    e->type = e32.e_type;
    e->machine = e32.e_machine;
    e->phoff = e32.e_phoff;
    e->shoff = e32.e_shoff;
    e->phnum = e32.e_phnum;
    e->phentsize = e32.e_phentsize;
    e->shnum = e32.e_shnum;
    e->shentsize = e32.e_shentsize;
    e->phsize = sizeof(Elf32_Phdr);
    e->shsize = sizeof(Elf32_Shdr);
    e->dynsize = sizeof(Elf32_Dyn);
    e->symsize = sizeof(Elf32_Sym);
    return 1;
  }
  return 0;
}

int edh_elf_program_header(const struct edh_elf* e, unsigned i, struct edh_elf_phdr* p) {
  if (i >= e->phnum || e->phentsize != e->phsize) return 0;
  unsigned long long at = e->phoff + (unsigned long long)i * e->phsize;
  if (e->is64) {
    Elf64_Phdr x;
    if (!edh_elf_read(e, at, &x, sizeof x)) return 0;
    p->type = x.p_type, p->flags = x.p_flags, p->offset = x.p_offset, p->vaddr = x.p_vaddr;
    p->filesz = x.p_filesz, p->memsz = x.p_memsz;
  } else {
    Elf32_Phdr x;
    if (!edh_elf_read(e, at, &x, sizeof x)) return 0;
    p->type = x.p_type, p->flags = x.p_flags, p->offset = x.p_offset, p->vaddr = x.p_vaddr;
    p->filesz = x.p_filesz, p->memsz = x.p_memsz;
  }
  return 1;
}

void edh_elf_section_header_at(const struct edh_elf* e, const void* raw, struct edh_elf_shdr* s) {
  if (e->is64) {
    Elf64_Shdr x;
    memcpy(&x, raw, sizeof x);
    s->name = x.sh_name, s->type = x.sh_type, s->link = x.sh_link, s->info = x.sh_info;
    s->flags = x.sh_flags, s->addr = x.sh_addr, s->offset = x.sh_offset, s->size = x.sh_size;
    s->entsize = x.sh_entsize;
  } else {
    Elf32_Shdr x;
    memcpy(&x, raw, sizeof x);
    s->name = x.sh_name, s->type = x.sh_type, s->link = x.sh_link, s->info = x.sh_info;
    s->flags = x.sh_flags, s->addr = x.sh_addr, s->offset = x.sh_offset, s->size = x.sh_size;
    s->entsize = x.sh_entsize;
  }
}

int edh_elf_section_header(const struct edh_elf* e, unsigned i, struct edh_elf_shdr* s) {
  unsigned char raw[sizeof(Elf64_Shdr)];
  if (i >= e->shnum || e->shentsize != e->shsize) return 0;
  if (!edh_elf_read(e, e->shoff + (unsigned long long)i * e->shsize, raw, e->shsize)) return 0;
  edh_elf_section_header_at(e, raw, s);
  return 1;
}

void edh_elf_dynamic_entry_at(const struct edh_elf* e, const void* raw, struct edh_elf_dyn* d) {
  if (e->is64) {
    Elf64_Dyn x;
    memcpy(&x, raw, sizeof x);
    d->tag = x.d_tag, d->val = x.d_un.d_val;
  } else {
    Elf32_Dyn x;
    memcpy(&x, raw, sizeof x);
    d->tag = x.d_tag, d->val = x.d_un.d_val;
  }
}

int edh_elf_dynamic_entry(const struct edh_elf* e, unsigned long long off, struct edh_elf_dyn* d) {
  unsigned char raw[sizeof(Elf64_Dyn)];
  if (!edh_elf_read(e, off, raw, e->dynsize)) return 0;
  edh_elf_dynamic_entry_at(e, raw, d);
  return 1;
}

void edh_elf_symbol_at(const struct edh_elf* e, const void* raw, struct edh_elf_sym* s) {
  if (e->is64) {
    Elf64_Sym x;
    memcpy(&x, raw, sizeof x);
    s->name = x.st_name, s->shndx = x.st_shndx, s->info = x.st_info, s->other = x.st_other;
    s->value = x.st_value, s->size = x.st_size;
  } else {
    Elf32_Sym x;
    memcpy(&x, raw, sizeof x);
    s->name = x.st_name, s->shndx = x.st_shndx, s->info = x.st_info, s->other = x.st_other;
    s->value = x.st_value, s->size = x.st_size;
  }
}

int edh_elf_symbol(const struct edh_elf* e, unsigned long long off, struct edh_elf_sym* s) {
  unsigned char raw[sizeof(Elf64_Sym)];
  if (!edh_elf_read(e, off, raw, e->symsize)) return 0;
  edh_elf_symbol_at(e, raw, s);
  return 1;
}

long long edh_elf_string(const struct edh_elf* e, unsigned long long off, unsigned long long limit, char* buf,
                         unsigned long cap) {
  if (cap == 0 || off >= limit) return -1;
  /* Into buf while it has room, then through `more` only to find where the string ends. Every
   * offset read stays below limit, so off + len cannot wrap. */
  char more[64];
  unsigned long long len = 0;
  for (;;) {
    int in_buf = len < cap - 1;
    char* to = in_buf ? buf + len : more;
    unsigned long long room = in_buf ? cap - 1 - len : sizeof more, left = limit - off - len;
    unsigned long n = (unsigned long)(left < room ? left : room);
    long got = n ? e->rd(e->ctx, off + len, to, n) : 0;
    if (got <= 0 || (unsigned long)got > n) break;
    const char* nul = (const char*)memchr(to, 0, (size_t)got);
    if (nul) {
      len += (unsigned long long)(nul - to);
      buf[len < cap - 1 ? len : cap - 1] = 0;
      return (long long)len;
    }
    len += (unsigned long long)got;
    if (len >= limit - off) break;
  }
  buf[len < cap - 1 ? len : cap - 1] = 0;
  return -1;
}
