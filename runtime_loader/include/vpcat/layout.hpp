// Where the verified sections of a .vpcat buffer are: the output of verify()
// and the input of CatalogView. Plain offsets, no pointers, so a Layout can
// be kept beside a buffer that moves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vpcat/bytes.hpp"
#include "vpcat/format.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// One known section after verification.
struct SectionRef {
  std::uint64_t offset = 0;       // of the section (its 8-byte section header)
  std::uint64_t size = 0;         // bytes, header included
  std::uint32_t count = 0;        // records
  std::uint32_t record_size = 0;  // stride between records, >= the 1.0 record size
  std::uint64_t records = 0;      // absolute offset of record 0 (offset + 8)
};

struct Layout {
  std::uint16_t format_major = 0, format_minor = 0, min_reader_minor = 0;
  std::uint16_t header_size = 0, entry_size = 0, section_count = 0;
  std::uint16_t writer_major = 0, writer_minor = 0, writer_patch = 0;
  std::uint32_t flags = 0;
  std::uint64_t file_size = 0;
  std::uint64_t table_end = 0;                      // header + section table
  SectionRef sections[kLastSectionType + 1] = {};   // indexed by SectionType; [0] unused
  std::uint64_t string_bytes = 0;                   // absolute offset of the strings' bytes

  const SectionRef& operator[](SectionType t) const noexcept { return sections[static_cast<std::uint32_t>(t)]; }
  SectionRef& operator[](SectionType t) noexcept { return sections[static_cast<std::uint32_t>(t)]; }
};

namespace detail {

// Typed access to the records of one section. Precondition for every
// accessor: the record index and field lie inside the section (proven by
// the verifier before use).
struct Records {
  const std::uint8_t* data = nullptr;  // start of the file
  SectionRef ref;
  std::uint32_t type = 0;

  Records() noexcept = default;
  Records(const std::uint8_t* d, const Layout& l, SectionType t) noexcept
      : data(d), ref(l[t]), type(static_cast<std::uint32_t>(t)) {}

  std::uint32_t count() const noexcept { return ref.count; }
  // Absolute offset of `field` in record i.
  std::uint64_t at(std::uint64_t i, std::size_t field = 0) const noexcept {
    return ref.records + i * ref.record_size + field;
  }
  const std::uint8_t* ptr(std::uint64_t i, std::size_t field = 0) const noexcept { return data + at(i, field); }
  std::uint8_t u8(std::uint64_t i, std::size_t f) const noexcept { return bytes::load_u8(ptr(i, f)); }
  std::uint32_t u32(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_u32(ptr(i, f)); }
  std::uint64_t u64(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_u64(ptr(i, f)); }
  std::int32_t i32(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_i32(ptr(i, f)); }
  double f64(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_f64(ptr(i, f)); }
};

// String i of a verified strings section (without its NUL terminator).
inline std::string_view string_at(const std::uint8_t* data, const Layout& l, std::uint32_t i) noexcept {
  const SectionRef& s = l[SectionType::strings];
  const std::uint32_t start = i == 0 ? 0 : bytes::load_u32(data + s.records + 4u * (i - 1));
  const std::uint32_t end = bytes::load_u32(data + s.records + 4u * i);
  return {reinterpret_cast<const char*>(data + l.string_bytes + start), end - start - 1u};
}

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
