#include "elf/elf_image.hpp"

#include <elf.h>

#include <cstring>

namespace elf {
namespace {

template <class T>
std::optional<T> read_at(std::string_view image, uint64_t off) {
  if (off > image.size() || image.size() - off < sizeof(T)) return std::nullopt;
  T v;
  std::memcpy(&v, image.data() + off, sizeof v);
  return v;
}

std::optional<std::string> cstring_at(std::string_view image, uint64_t off, uint64_t limit) {
  if (off >= image.size() || off >= limit) return std::nullopt;
  uint64_t end = std::min<uint64_t>(image.size(), limit);
  const char* start = image.data() + off;
  const void* nul = std::memchr(start, '\0', size_t(end - off));
  if (!nul) return std::nullopt;
  return std::string(start, static_cast<const char*>(nul));
}

bool valid_ident(std::string_view image) {
  if (image.size() < EI_NIDENT || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0) return false;
  // Only the host's byte order: a foreign-endian binary would not run here anyway.
  return image[EI_DATA] == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB);
}

template <class Ehdr, class Phdr, class Shdr, class Dyn, class Sym>
struct Reader {
  std::string_view image;
  Ehdr eh{};

  bool init() {
    auto h = read_at<Ehdr>(image, 0);
    if (!h) return false;
    eh = *h;
    return eh.e_phnum == 0 || eh.e_phentsize == sizeof(Phdr);
  }

  std::vector<Phdr> phdrs() const {
    std::vector<Phdr> out;
    for (uint64_t i = 0; i < eh.e_phnum; ++i)
      if (auto p = read_at<Phdr>(image, uint64_t(eh.e_phoff) + i * sizeof(Phdr))) out.push_back(*p);
      else return {};
    return out;
  }

  // Only offsets inside the image: p_offset comes from the file, and p_offset + delta could
  // wrap to a "small" number past the end (a crafted .so made the version reader read there).
  std::optional<uint64_t> offset_of(uint64_t vaddr) const {
    for (const auto& p : phdrs())
      if (p.p_type == PT_LOAD && vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_filesz) {
        if (p.p_offset > image.size() || vaddr - p.p_vaddr >= image.size() - p.p_offset) return std::nullopt;
        return uint64_t(p.p_offset) + (vaddr - p.p_vaddr);
      }
    return std::nullopt;
  }

  std::vector<Dyn> dynamic() const {
    std::vector<Dyn> out;
    for (const auto& p : phdrs()) {
      if (p.p_type != PT_DYNAMIC) continue;
      for (uint64_t off = p.p_offset; off + sizeof(Dyn) <= uint64_t(p.p_offset) + p.p_filesz; off += sizeof(Dyn)) {
        auto d = read_at<Dyn>(image, off);
        if (!d || d->d_tag == DT_NULL) break;
        out.push_back(*d);
      }
    }
    return out;
  }

  Info info() const {
    Info in;
    in.is64 = sizeof(Ehdr) == sizeof(Elf64_Ehdr);
    in.type = eh.e_type;
    in.machine = eh.e_machine;
    for (const auto& p : phdrs()) {
      if (p.p_type == PT_INTERP) {
        in.has_interp = true;
        in.interp = cstring_at(image, p.p_offset, uint64_t(p.p_offset) + p.p_filesz).value_or("");
      }
      if (p.p_type == PT_DYNAMIC) in.has_dynamic = true;
    }
    auto dyn = dynamic();
    std::optional<uint64_t> strtab;
    uint64_t strsz = 0;
    for (const auto& d : dyn) {
      if (d.d_tag == DT_STRTAB) strtab = offset_of(d.d_un.d_ptr);
      if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
    }
    if (strtab) {
      uint64_t limit = strsz ? *strtab + strsz : image.size();
      for (const auto& d : dyn) {
        if (d.d_tag == DT_NEEDED)
          if (auto s = cstring_at(image, *strtab + d.d_un.d_val, limit)) in.needed.push_back(*s);
        if (d.d_tag == DT_SONAME) in.soname = cstring_at(image, *strtab + d.d_un.d_val, limit).value_or("");
      }
    }
    return in;
  }

  // NT_GNU_BUILD_ID from the PT_NOTE segments, as hex. Note sizes come from the file: aligned
  // in 64 bits, where `+ 3` cannot wrap (fuzz_elf found that).
  std::optional<std::string> build_id() const {
    for (const auto& p : phdrs()) {
      if (p.p_type != PT_NOTE || p.p_offset > image.size() || image.size() - p.p_offset < p.p_filesz) continue;
      std::string_view notes = image.substr(size_t(p.p_offset), size_t(p.p_filesz));
      for (uint64_t off = 0; auto nh = read_at<Elf64_Nhdr>(notes, off);) {
        uint64_t name_at = off + sizeof *nh, desc_at = name_at + ((uint64_t(nh->n_namesz) + 3) & ~uint64_t(3));
        uint64_t next = desc_at + ((uint64_t(nh->n_descsz) + 3) & ~uint64_t(3));
        if (next > notes.size()) break;
        if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4) {
          static const char hex[] = "0123456789abcdef";
          std::string id;
          for (uint64_t i = 0; i < nh->n_descsz; ++i) {
            auto byte = static_cast<unsigned char>(notes[size_t(desc_at + i)]);
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
    if (eh.e_shnum > 0 && eh.e_shentsize == sizeof(Shdr)) {
      for (uint64_t i = 0; i < eh.e_shnum; ++i) {
        auto sh = read_at<Shdr>(image, uint64_t(eh.e_shoff) + i * sizeof(Shdr));
        if (!sh) break;
        if (sh->sh_type != SHT_DYNSYM || sh->sh_entsize != sizeof(Sym)) continue;
        auto str = read_at<Shdr>(image, uint64_t(eh.e_shoff) + uint64_t(sh->sh_link) * sizeof(Shdr));
        if (!str || sh->sh_link >= eh.e_shnum) return std::nullopt;
        return Table{sh->sh_offset, sh->sh_size / sizeof(Sym), str->sh_offset, uint64_t(str->sh_offset) + str->sh_size};
      }
    }
    Table t;
    std::optional<uint64_t> symtab, strtab, hash, gnu_hash;
    uint64_t strsz = 0;
    for (const auto& d : dynamic()) {
      if (d.d_tag == DT_SYMTAB) symtab = offset_of(d.d_un.d_ptr);
      if (d.d_tag == DT_STRTAB) strtab = offset_of(d.d_un.d_ptr);
      if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
      if (d.d_tag == DT_HASH) hash = offset_of(d.d_un.d_ptr);
      if (d.d_tag == DT_GNU_HASH) gnu_hash = offset_of(d.d_un.d_ptr);
    }
    if (!symtab || !strtab) return std::nullopt;
    t.syms = *symtab;
    t.strs = *strtab;
    // DT_STRSZ comes from the file: never trust it past the end of the image (fuzz_inspect).
    t.strs_end = std::min<uint64_t>(strsz ? *strtab + strsz : image.size(), image.size());
    if (hash) {
      auto nchain = read_at<uint32_t>(image, *hash + 4);
      if (!nchain) return std::nullopt;
      t.count = *nchain;
    } else if (gnu_hash) {
      auto nbuckets = read_at<uint32_t>(image, *gnu_hash);
      auto symoffset = read_at<uint32_t>(image, *gnu_hash + 4);
      auto bloom_size = read_at<uint32_t>(image, *gnu_hash + 8);
      if (!nbuckets || !symoffset || !bloom_size) return std::nullopt;
      uint64_t buckets = *gnu_hash + 16 + uint64_t(*bloom_size) * (sizeof(Ehdr) == sizeof(Elf64_Ehdr) ? 8 : 4);
      uint64_t chains = buckets + uint64_t(*nbuckets) * 4;
      // The bucket count comes from the file: a table reaching past the image is corrupt, and
      // looping over 2^32 absent buckets took libFuzzer's 10 s (fuzz_inspect timeout).
      if (chains > image.size()) return std::nullopt;
      uint32_t last = 0;
      for (uint32_t b = 0; b < *nbuckets; ++b)
        if (auto v = read_at<uint32_t>(image, buckets + uint64_t(b) * 4)) last = std::max(last, *v);
      if (last < *symoffset) {
        t.count = *symoffset;
      } else {
        // Walk the last bucket's chain to its end marker (low bit set).
        for (uint64_t i = last;; ++i) {
          auto c = read_at<uint32_t>(image, chains + (i - *symoffset) * 4);
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
      auto s = read_at<Sym>(image, t->syms + i * sizeof(Sym));
      if (!s) return std::nullopt;
      // Offsets come from the file: compare without sums that could wrap around (fuzz_inspect).
      uint64_t end = std::min<uint64_t>(t->strs_end, image.size());  // section sizes lie too
      if (t->strs >= end || s->st_name >= end - t->strs) continue;
      uint64_t at = t->strs + s->st_name;
      if (end - at < name.size() + 1) continue;
      if (std::memcmp(image.data() + at, name.data(), name.size()) != 0 || image[at + name.size()] != '\0') continue;
      Symbol out;
      out.value = s->st_value;
      out.size = s->st_size;
      out.defined = s->st_shndx != SHN_UNDEF;
      out.type = (unsigned char)(s->st_info & 0xf);
      out.bind = (unsigned char)(s->st_info >> 4);
      return out;
    }
    return std::nullopt;
  }
};

using Reader64 = Reader<Elf64_Ehdr, Elf64_Phdr, Elf64_Shdr, Elf64_Dyn, Elf64_Sym>;
using Reader32 = Reader<Elf32_Ehdr, Elf32_Phdr, Elf32_Shdr, Elf32_Dyn, Elf32_Sym>;

template <class F>
auto with_reader(std::string_view image, F&& f) -> decltype(f(std::declval<Reader64&>())) {
  if (!valid_ident(image)) return {};
  if (image[EI_CLASS] == ELFCLASS64) {
    Reader64 r{image};
    if (!r.init()) return {};
    return f(r);
  }
  if (image[EI_CLASS] == ELFCLASS32) {
    Reader32 r{image};
    if (!r.init()) return {};
    return f(r);
  }
  return {};
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
