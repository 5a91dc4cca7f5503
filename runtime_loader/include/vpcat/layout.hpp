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

}  // namespace v0_1
}  // namespace vpcat
