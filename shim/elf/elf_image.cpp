#include "elf/elf_image.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "elf/elf_read.h"

namespace elf {
namespace {

// The one ELF reader (elf_read.h) over the bytes in memory: the image's bounds are checked here,
// once, for every read.
long read_image(void* ctx, unsigned long long off, void* buf, unsigned long n) {
  auto image = static_cast<const std::string_view*>(ctx);
  if (off >= image->size()) return 0;
  unsigned long got = static_cast<unsigned long>(std::min<unsigned long long>(n, image->size() - off));
  std::memcpy(buf, image->data() + off, got);
  return static_cast<long>(got);
}

struct Reader {
  std::string_view image;
  edh_elf e{};

  bool init() {
    // Program headers of the class's size: what ld.so needs to read them at all.
    return edh_elf_header(&e, read_image, &image) && (e.phnum == 0 || e.phentsize == e.phsize);
  }

  bool is64() const { return e.is64 != 0; }

  template <class T>
  std::optional<T> read_at(uint64_t off) const {
    T v;
    if (!edh_elf_read(&e, off, &v, sizeof v)) return std::nullopt;
    return v;
  }

  // A NUL-ended string at `off` that ends before `limit`.
  std::optional<std::string> cstring_at(uint64_t off, uint64_t limit) const {
    char small[256];
    long long n = edh_elf_string(&e, off, limit, small, sizeof small);
    if (n < 0) return std::nullopt;
    if (uint64_t(n) < sizeof small) return std::string(small, size_t(n));
    std::string s(size_t(n), '\0');
    if (!edh_elf_read(&e, off, s.data(), static_cast<unsigned long>(n))) return std::nullopt;
    return s;
  }

  // All of them or none.
  std::vector<edh_elf_phdr> phdrs() const {
    std::vector<edh_elf_phdr> out(e.phnum);
    for (unsigned i = 0; i < e.phnum; ++i)
      if (!edh_elf_program_header(&e, i, &out[i])) return {};
    return out;
  }

  // Only offsets inside the image: p_offset comes from the file, and p_offset + delta could
  // wrap to a "small" number past the end (a crafted .so made the version reader read there).
  std::optional<uint64_t> offset_of(uint64_t vaddr) const {
    for (const auto& p : phdrs())
      if (p.type == PT_LOAD && vaddr >= p.vaddr && vaddr - p.vaddr < p.filesz) {
        if (p.offset > image.size() || vaddr - p.vaddr >= image.size() - p.offset) return std::nullopt;
        return p.offset + (vaddr - p.vaddr);
      }
    return std::nullopt;
  }

  std::vector<edh_elf_dyn> dynamic() const {
    std::vector<edh_elf_dyn> out;
    for (const auto& p : phdrs()) {
      if (p.type != PT_DYNAMIC) continue;
      for (uint64_t off = p.offset; off + e.dynsize <= p.offset + p.filesz; off += e.dynsize) {
        edh_elf_dyn d;
        if (!edh_elf_dynamic_entry(&e, off, &d) || d.tag == DT_NULL) break;
        out.push_back(d);
      }
    }
    return out;
  }

  Info info() const {
    Info in;
    in.is64 = is64();
    in.type = uint16_t(e.type);
    in.machine = uint16_t(e.machine);
    for (const auto& p : phdrs()) {
      if (p.type == PT_INTERP) {
        in.has_interp = true;
        in.interp = cstring_at(p.offset, p.offset + p.filesz).value_or("");
      }
      if (p.type == PT_DYNAMIC) in.has_dynamic = true;
    }
    auto dyn = dynamic();
    std::optional<uint64_t> strtab;
    uint64_t strsz = 0;
    for (const auto& d : dyn) {
      if (d.tag == DT_STRTAB) strtab = offset_of(d.val);
      if (d.tag == DT_STRSZ) strsz = d.val;
    }
    if (strtab) {
      uint64_t limit = strsz ? *strtab + strsz : image.size();
      for (const auto& d : dyn) {
        if (d.tag == DT_NEEDED)
          if (auto s = cstring_at(*strtab + d.val, limit)) in.needed.push_back(*s);
        if (d.tag == DT_SONAME) in.soname = cstring_at(*strtab + d.val, limit).value_or("");
      }
    }
    return in;
  }

  // NT_GNU_BUILD_ID from the PT_NOTE segments, as hex. Note sizes come from the file: aligned
  // in 64 bits, where `+ 3` cannot wrap (fuzz_elf found that).
  std::optional<std::string> build_id() const {
    for (const auto& p : phdrs()) {
      if (p.type != PT_NOTE || p.offset > image.size() || image.size() - p.offset < p.filesz) continue;
      // off never passes p.filesz (next is checked against it), so the subtraction cannot wrap.
      for (uint64_t off = 0; p.filesz - off >= sizeof(Elf64_Nhdr);) {
        auto nh = read_at<Elf64_Nhdr>(p.offset + off);
        if (!nh) break;
        uint64_t name_at = off + sizeof *nh, desc_at = name_at + ((uint64_t(nh->n_namesz) + 3) & ~uint64_t(3));
        uint64_t next = desc_at + ((uint64_t(nh->n_descsz) + 3) & ~uint64_t(3));
        if (next > p.filesz) break;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4) {
          static const char hex[] = "0123456789abcdef";
          std::string id;
          for (uint64_t i = 0; i < nh->n_descsz; ++i) {
            auto byte = static_cast<unsigned char>(image[size_t(p.offset + desc_at + i)]);
            id += hex[byte >> 4];
            id += hex[byte & 15];
          }
          return id;
        }
        off = next;
      }
    }
    return std::nullopt;
  }

  // The dynamic symbol table: from the section headers when present, else from PT_DYNAMIC
  // with the symbol count taken from DT_HASH or DT_GNU_HASH (stripped-section binaries).
  struct Table {
    uint64_t syms = 0, count = 0, strs = 0, strs_end = 0;
  };

  std::optional<Table> dynsym() const {
    if (e.shnum > 0 && e.shentsize == e.shsize) {
      for (unsigned i = 0; i < e.shnum; ++i) {
        edh_elf_shdr sh, str;
        if (!edh_elf_section_header(&e, i, &sh)) break;
        if (sh.type != SHT_DYNSYM || sh.entsize != e.symsize) continue;
        if (!edh_elf_section_header(&e, sh.link, &str)) return std::nullopt;
        return Table{sh.offset, sh.size / e.symsize, str.offset, str.offset + str.size};
      }
    }
    Table t;
    std::optional<uint64_t> symtab, strtab, hash, gnu_hash;
    uint64_t strsz = 0;
    for (const auto& d : dynamic()) {
      if (d.tag == DT_SYMTAB) symtab = offset_of(d.val);
      if (d.tag == DT_STRTAB) strtab = offset_of(d.val);
      if (d.tag == DT_STRSZ) strsz = d.val;
      if (d.tag == DT_HASH) hash = offset_of(d.val);
      if (d.tag == DT_GNU_HASH) gnu_hash = offset_of(d.val);
    }
    if (!symtab || !strtab) return std::nullopt;
    t.syms = *symtab;
    t.strs = *strtab;
    // DT_STRSZ comes from the file: never trust it past the end of the image (fuzz_inspect).
    t.strs_end = std::min<uint64_t>(strsz ? *strtab + strsz : image.size(), image.size());
    if (hash) {
      auto nchain = read_at<uint32_t>(*hash + 4);
      if (!nchain) return std::nullopt;
      t.count = *nchain;
    } else if (gnu_hash) {
      auto nbuckets = read_at<uint32_t>(*gnu_hash);
      auto symoffset = read_at<uint32_t>(*gnu_hash + 4);
      auto bloom_size = read_at<uint32_t>(*gnu_hash + 8);
      if (!nbuckets || !symoffset || !bloom_size) return std::nullopt;
      uint64_t buckets = *gnu_hash + 16 + uint64_t(*bloom_size) * (is64() ? 8 : 4);
      uint64_t chains = buckets + uint64_t(*nbuckets) * 4;
      // The bucket count comes from the file: a table reaching past the image is corrupt, and
      // looping over 2^32 absent buckets took libFuzzer's 10 s (fuzz_inspect timeout).
      if (chains > image.size()) return std::nullopt;
      uint32_t last = 0;
      for (uint32_t b = 0; b < *nbuckets; ++b)
        if (auto v = read_at<uint32_t>(buckets + uint64_t(b) * 4)) last = std::max(last, *v);
      if (last < *symoffset) {
        t.count = *symoffset;
      } else {
        // Walk the last bucket's chain to its end marker (low bit set).
        for (uint64_t i = last;; ++i) {
          auto c = read_at<uint32_t>(chains + (i - *symoffset) * 4);
          if (!c) return std::nullopt;
          if (*c & 1) {
            t.count = i + 1;
            break;
          }
        }
      }
    } else {
      return std::nullopt;
    }
    return t;
  }

  std::optional<Symbol> find(std::string_view name) const {
    auto t = dynsym();
    if (!t) return std::nullopt;
    for (uint64_t i = 0; i < t->count; ++i) {
      edh_elf_sym s;
      if (!edh_elf_symbol(&e, t->syms + i * e.symsize, &s)) return std::nullopt;
      // Offsets come from the file: compare without sums that could wrap around (fuzz_inspect).
      uint64_t end = std::min<uint64_t>(t->strs_end, image.size());  // section sizes lie too
      if (t->strs >= end || s.name >= end - t->strs) continue;
      uint64_t at = t->strs + s.name;
      if (end - at < name.size() + 1) continue;
      if (std::memcmp(image.data() + at, name.data(), name.size()) != 0 || image[at + name.size()] != '\0') continue;
      Symbol out;
      out.value = s.value;
      out.size = s.size;
      out.defined = s.shndx != SHN_UNDEF;
      out.type = (unsigned char)(s.info & 0xf);
      out.bind = (unsigned char)(s.info >> 4);
      return out;
    }
    return std::nullopt;
  }
};

template <class F>
auto with_reader(std::string_view image, F&& f) -> decltype(f(std::declval<Reader&>())) {
  Reader r{image};
  if (!r.init()) return {};
  return f(r);
}

}  // namespace

std::optional<Info> parse(std::string_view image) {
  return with_reader(image, [](auto& r) -> std::optional<Info> { return r.info(); });
}

std::optional<Symbol> find_dynamic_symbol(std::string_view image, std::string_view name) {
  return with_reader(image, [&](auto& r) { return r.find(name); });
}

bool defines_function(std::string_view image, std::string_view name) {
  auto s = find_dynamic_symbol(image, name);
  return s && s->defined && (s->bind == STB_GLOBAL || s->bind == STB_WEAK) &&
         (s->type == STT_FUNC || s->type == STT_GNU_IFUNC);
}

std::optional<std::string> build_id(std::string_view image) {
  return with_reader(image, [](auto& r) { return r.build_id(); });
}

std::optional<uint64_t> file_offset(std::string_view image, uint64_t vaddr) {
  return with_reader(image, [&](auto& r) { return r.offset_of(vaddr); });
}

}  // namespace elf
