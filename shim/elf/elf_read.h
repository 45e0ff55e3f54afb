/* The one reader of ELF structures: the header, program headers, section headers, dynamic
 * entries, symbols and strings of a string table, in either class, widened to one shape.
 *
 * Plain C that allocates nothing, uses no stdio and keeps no state of its own: the exec hook runs
 * it in every process of a tool's tree, in a vfork child too (probe/loader_check.c), and
 * elf_image.cpp builds on it over bytes in memory. Every byte comes through the caller's read
 * callback, which says how many bytes it got: a structure not read whole is not there, so a
 * truncated or hostile file gives "not there", never a read past what the callback holds.
 * Only this host's byte order: a foreign-endian binary would not run here anyway. */
#ifndef EDASHIM_ELF_READ_H
#define EDASHIM_ELF_READ_H

#ifdef __cplusplus
extern "C" {
#endif

/* Reads n bytes at offset off into buf; returns how many were read, < 0 on error. */
typedef long (*edh_read_fn)(void* ctx, unsigned long long off, void* buf, unsigned long n);

/* The file header, widened, with the reader it came through. */
struct edh_elf {
  edh_read_fn rd;
  void* ctx;
  int is64;
  unsigned type, machine;
  unsigned long long phoff, shoff;
  unsigned phnum, phentsize, shnum, shentsize; /* as the file says */
  unsigned phsize, shsize, dynsize, symsize;   /* this class's entry sizes */
};

struct edh_elf_phdr {
  unsigned type, flags;
  unsigned long long offset, vaddr, filesz, memsz;
};

struct edh_elf_shdr {
  unsigned name, type, link, info;
  unsigned long long flags, addr, offset, size, entsize;
};

struct edh_elf_dyn {
  long long tag;
  unsigned long long val; /* d_val or d_ptr */
};

struct edh_elf_sym {
  unsigned name, shndx;
  unsigned char info, other;
  unsigned long long value, size;
};

/* 1 with *e filled when the file starts with ELF's magic in this host's byte order, of class
 * 32 or 64, and its whole header could be read. */
int edh_elf_header(struct edh_elf* e, edh_read_fn rd, void* ctx);

/* 1 when all n bytes at off were read into buf. */
int edh_elf_read(const struct edh_elf* e, unsigned long long off, void* buf, unsigned long n);

/* Program header i: 1 when i < phnum, the file's entry size is its class's, and it was read. */
int edh_elf_program_header(const struct edh_elf* e, unsigned i, struct edh_elf_phdr* p);

/* Section header i: 1 when i < shnum, the file's entry size is its class's, and it was read. */
int edh_elf_section_header(const struct edh_elf* e, unsigned i, struct edh_elf_shdr* s);

/* One dynamic entry or symbol at file offset off: 1 when it was read whole. */
int edh_elf_dynamic_entry(const struct edh_elf* e, unsigned long long off, struct edh_elf_dyn* d);
int edh_elf_symbol(const struct edh_elf* e, unsigned long long off, struct edh_elf_sym* s);

/* The same from bytes the caller read itself (a table read in one go: one system call instead
 * of one per entry); `raw` holds e->shsize, e->dynsize or e->symsize bytes. */
void edh_elf_section_header_at(const struct edh_elf* e, const void* raw, struct edh_elf_shdr* s);
void edh_elf_dynamic_entry_at(const struct edh_elf* e, const void* raw, struct edh_elf_dyn* d);
void edh_elf_symbol_at(const struct edh_elf* e, const void* raw, struct edh_elf_sym* s);

/* The string at file offset off, which must end (its NUL) before file offset limit: its length,
 * or -1 when it does not end there or cannot be read. Like snprintf, at most cap - 1 of its
 * bytes go to buf, NUL-terminated (cap > 0): a longer string's length tells the caller how
 * large a buffer to read it into. */
long long edh_elf_string(const struct edh_elf* e, unsigned long long off, unsigned long long limit, char* buf,
                         unsigned long cap);

#ifdef __cplusplus
}
#endif
#endif
