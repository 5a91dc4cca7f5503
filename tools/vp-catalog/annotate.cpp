#include "annotate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "vp/catalog/names.hpp"
#include "vpcat/catalog_view.hpp"

namespace vp::catalog_cli {

namespace {

namespace b = vpcat::bytes;
using vpcat::Field;
using vpcat::FieldType;

constexpr std::size_t kBytesPerLine = 8;
constexpr std::uint32_t kEntries = 0xFFFFFFFFu;  // `section` argument for section-table entries

std::string escaped(const std::uint8_t* p, std::size_t n, std::size_t max = 48) {
  std::string out;
  for (std::size_t i = 0; i < n && i < max; ++i) {
    const std::uint8_t c = p[i];
    if (c == '"' || c == '\\') out += fmt::format("\\{}", static_cast<char>(c));
    else if (c >= 0x20 && c < 0x7F) out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return n > max ? out + "..." : out;
}

class Annotator {
  struct Entry {
    std::uint32_t type;
    std::uint64_t offset, size;
  };

 public:
  Annotator(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {
    verified_ = vpcat::CatalogView::open(d, n, &view_).ok();
  }

  std::string run() {
    const vpcat::Status s = vpcat::verify(d_, n_, nullptr);
    out_ += fmt::format("# {} bytes; verify: {}\n", n_, s.message());
    header();
    table();
    sections();
    return out_;
  }

 private:
  bool have(std::uint64_t off, std::uint64_t width) const { return width <= n_ && off <= n_ - width; }

  // Bytes [off, off + width) with a label; long fields continue on more lines.
  void line(std::uint64_t off, std::uint64_t width, const std::string& label) {
    for (std::uint64_t at = off; at < off + width || width == 0; at += kBytesPerLine) {
      std::string hex;
      for (std::uint64_t i = at; i < std::min(off + width, at + kBytesPerLine); ++i) hex += fmt::format("{:02x} ", d_[i]);
      out_ += fmt::format("  {:08x}  {:<24} {}\n", at, hex, at == off ? label : "  ...");
      if (width == 0) break;
    }
  }

  std::string str(std::uint32_t index) const {
    if (!verified_) return std::to_string(index);
    return fmt::format("{} (\"{}\")", index, escaped(reinterpret_cast<const std::uint8_t*>(view_.string(index).data()),
                                                     view_.string(index).size()));
  }

  std::string value(const Field& f, std::uint64_t off, std::uint32_t section) const {
    const std::uint8_t* p = d_ + off;
    switch (f.type) {
      case FieldType::magic: return fmt::format("\"{}\"", escaped(p, 8));
      case FieldType::u8: {
        const std::uint8_t v = b::load_u8(p);
        if (section == static_cast<std::uint32_t>(vpcat::SectionType::components))
          return fmt::format("{} ({})", v, vpcat::component_kind_name(v));
        if (section == static_cast<std::uint32_t>(vpcat::SectionType::links))
          return fmt::format("{} ({})", v, catalog::to_string(static_cast<catalog::LinkKind>(v)));
        if (section == static_cast<std::uint32_t>(vpcat::SectionType::cluster))
          return fmt::format("{} ({})", v, catalog::to_string(static_cast<catalog::FabricKind>(v)));
        if (section == static_cast<std::uint32_t>(vpcat::SectionType::machine_model))
          return fmt::format("{} ({})", v, vpcat::model_part_name(v));
        return std::to_string(v);
      }
      case FieldType::u16: return std::to_string(b::load_u16(p));
      case FieldType::u32:
        if (section == kEntries && f.offset == vpcat::entry::type)
          return fmt::format("{} ({})", b::load_u32(p), vpcat::section_name(b::load_u32(p)));
        return std::to_string(b::load_u32(p));
      case FieldType::u64: return std::to_string(b::load_u64(p));
      case FieldType::i32: {
        const std::int32_t v = b::load_i32(p);
        return section == static_cast<std::uint32_t>(vpcat::SectionType::pattern_roles)
                   ? fmt::format("{} ({})", v, catalog::role_text(v))
                   : std::to_string(v);
      }
      case FieldType::f64: return fmt::format("{}", b::load_f64(p));
      case FieldType::str: return str(b::load_u32(p));
      case FieldType::id: return b::load_u32(p) == vpcat::kNone ? "none" : std::to_string(b::load_u32(p));
      case FieldType::flags8: return fmt::format("0x{:02x}", b::load_u8(p));
      case FieldType::flags32: return fmt::format("0x{:08x}", b::load_u32(p));
      case FieldType::checksum: return fmt::format("0x{:08x}", b::load_u32(p));
      case FieldType::reserved: return "(reserved, must be zero)";
    }
    return "";
  }

  // The fields of one record at `base`, as far as the buffer holds them.
  void fields(const Field* fs, std::size_t count, std::uint64_t base, const std::string& prefix, std::uint32_t section) {
    for (std::size_t i = 0; i < count; ++i) {
      const Field& f = fs[i];
      if (!have(base + f.offset, f.width)) return;
      line(base + f.offset, f.width, fmt::format("{}{} = {}", prefix, f.name, value(f, base + f.offset, section)));
    }
  }

  void header() {
    out_ += "header:\n";
    fields(vpcat::kHeaderFields, std::size(vpcat::kHeaderFields), 0, "", 0);
    if (have(0, vpcat::header::size)) {
      header_size_ = std::max<std::uint64_t>(b::load_u16(d_ + vpcat::header::header_size), vpcat::header::size);
      entry_size_ = std::max<std::uint64_t>(b::load_u16(d_ + vpcat::header::entry_size), vpcat::entry::entry_size);
      count_ = b::load_u16(d_ + vpcat::header::section_count);
    }
    if (header_size_ > vpcat::header::size && have(vpcat::header::size, header_size_ - vpcat::header::size))
      line(vpcat::header::size, header_size_ - vpcat::header::size, "header bytes unknown to format 1.0");
    cursor_ = std::min<std::uint64_t>(n_, header_size_);
  }

  void table() {
    if (count_ == 0) return;
    out_ += "section table:\n";
    for (std::uint32_t i = 0; i < count_; ++i) {
      const std::uint64_t e = header_size_ + std::uint64_t{i} * entry_size_;
      if (!have(e, vpcat::entry::entry_size)) {
        out_ += "  (the file ends inside the section table)\n";
        return;
      }
      fields(vpcat::kEntryFields, std::size(vpcat::kEntryFields), e, fmt::format("entry[{}].", i), kEntries);
      if (entry_size_ > vpcat::entry::entry_size)
        line(e + vpcat::entry::entry_size, entry_size_ - vpcat::entry::entry_size, "entry bytes unknown to format 1.0");
      entries_.push_back({b::load_u32(d_ + e), b::load_u64(d_ + e + vpcat::entry::offset),
                          b::load_u64(d_ + e + vpcat::entry::size)});
      cursor_ = e + entry_size_;
    }
  }

  void gap(std::uint64_t from, std::uint64_t to) {
    if (to > from && have(from, to - from)) line(from, to - from, fmt::format("padding ({} bytes, must be zero)", to - from));
  }

  void sections() {
    std::sort(entries_.begin(), entries_.end(), [](const Entry& x, const Entry& y) { return x.offset < y.offset; });
    for (const Entry& e : entries_) {
      if (!have(e.offset, e.size)) {
        out_ += fmt::format("section '{}': offset {} + size {} lies outside the file\n", vpcat::section_name(e.type),
                            e.offset, e.size);
        continue;
      }
      gap(cursor_, e.offset);
      out_ += fmt::format("section '{}' (type {}, {} bytes):\n", vpcat::section_name(e.type), e.type, e.size);
      section(e);
      cursor_ = std::max(cursor_, e.offset + e.size);
    }
    gap(cursor_, n_);
  }

  void section(const Entry& e) {
    const vpcat::SectionSpec* spec = vpcat::section_spec(e.type);
    if (!spec || e.size < vpcat::section::size) {
      if (e.size > 0) line(e.offset, e.size, spec ? "too small for a section header" : "contents unknown to format 1.0");
      return;
    }
    fields(vpcat::kSectionHeaderFields, std::size(vpcat::kSectionHeaderFields), e.offset, "", 0);
    const std::uint32_t count = b::load_u32(d_ + e.offset), stride = b::load_u32(d_ + e.offset + 4);
    const std::uint64_t body = e.offset + vpcat::section::size, end = e.offset + e.size;
    std::uint64_t at = body;
    if (stride >= spec->min_record_size) {
      const std::uint64_t fit = std::min<std::uint64_t>(count, (end - body) / stride);
      for (std::uint64_t i = 0; i < fit; ++i, at += stride) {
        const bool array = spec->shape != vpcat::SectionShape::records;
        // Fields a later minor appended are shown when the record holds them.
        std::size_t shown = 0;
        while (shown < spec->field_count && spec->fields[shown].offset + spec->fields[shown].width <= stride) ++shown;
        fields(spec->fields, shown, at, array ? fmt::format("[{}] ", i) : fmt::format("record[{}].", i), e.type);
        const std::uint32_t known = std::min<std::uint32_t>(stride, spec->known_record_size);
        if (stride > known) line(at + known, stride - known, "unused");
      }
    }
    if (spec->shape == vpcat::SectionShape::strings) return string_bytes(at, end);
    if (at < end) line(at, end - at, "bytes after the records");
  }

  void string_bytes(std::uint64_t at, std::uint64_t end) {
    std::uint32_t i = 0;
    while (at < end) {
      const void* nul = std::memchr(d_ + at, 0, end - at);
      const std::uint64_t stop = nul ? static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(nul) - d_) + 1 : end;
      line(at, stop - at, fmt::format("string {} \"{}\"", i++, escaped(d_ + at, nul ? stop - at - 1 : stop - at)));
      at = stop;
    }
  }

  const std::uint8_t* d_;
  std::size_t n_;
  vpcat::CatalogView view_;
  bool verified_ = false;
  std::uint64_t header_size_ = vpcat::header::size, entry_size_ = vpcat::entry::entry_size, cursor_ = 0;
  std::uint32_t count_ = 0;
  std::vector<Entry> entries_;
  std::string out_;
};

}  // namespace

std::string annotate(const std::uint8_t* data, std::size_t size) { return Annotator(data, size).run(); }

}  // namespace vp::catalog_cli
