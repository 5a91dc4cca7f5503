// Verification, part 1: the header, the section table, the section headers
// and the string table (SPEC.md "Header", "Section table", "Sections",
// "strings"). Internal to verify.hpp; each function fills its part of the
// Layout and returns the first failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vpcat/crc32c.hpp"
#include "vpcat/utf8.hpp"
#include "vpcat/detail/verify_context.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

inline Status verify_signature(const VerifyContext& c) noexcept {
  const std::size_t n = c.size < 8 ? c.size : 8;
  bool match = true;
  for (std::size_t i = 0; i < n; ++i) match = match && c.data[i] == kMagic[i];
  if (!match) {
    static const char hex[] = "0123456789abcdef";
    char got[8 * 3] = {};
    std::size_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0) got[at++] = ' ';
      got[at++] = hex[c.data[i] >> 4];
      got[at++] = hex[c.data[i] & 0xF];
    }
    // Hints for the two usual accidents.
    const bool name_kept = n >= 4 && c.data[0] == kMagic[0] && c.data[1] == kMagic[1] && c.data[2] == kMagic[2] &&
                           c.data[3] == kMagic[3];
    const char* hint = name_kept ? "; line endings converted by a text-mode transfer?"
                       : c.data[0] == '{' ? "; this looks like JSON: turn a JSON mirror into a catalog with vp-catalog convert"
                                          : "";
    return Status::at(Error::bad_magic, "header", 0, "bad signature: expected 89 56 50 43 0d 0a 1a 0a, got %s%s",
                      got, hint);
  }
  if (c.size < 8)
    return Status::at(Error::truncated, "header", 0, "%llu bytes, shorter than the 8-byte signature", ull(c.size));
  return {};
}

inline Status verify_header(VerifyContext& c) noexcept {
  const std::uint8_t* d = c.data;
  Layout& l = c.layout;
  if (c.size > c.opts.max_file_size)
    return Status::at(Error::file_too_large, "file", kNoOffset, "%llu bytes, limit max_file_size %llu", ull(c.size),
                      ull(c.opts.max_file_size));
  if (Status s = verify_signature(c); !s.ok()) return s;
  if (c.size < header::format_minor + 2)
    return Status::at(Error::truncated, "header", 0, "%llu bytes, shorter than the 64-byte header", ull(c.size));
  l.format_major = bytes::load_u16(d + header::format_major);
  l.format_minor = bytes::load_u16(d + header::format_minor);
  if (l.format_major != kFormatMajor)
    return Status::at(Error::unsupported_major, "header", header::format_major,
                      "file has format %u.%u, this reader implements %u.%u", l.format_major, l.format_minor,
                      kFormatMajor, kFormatMinor);
  if (c.size < header::size)
    return Status::at(Error::truncated, "header", 0, "%llu bytes, shorter than the 64-byte header", ull(c.size));
  l.min_reader_minor = bytes::load_u16(d + header::min_reader_minor);
  if (l.min_reader_minor > l.format_minor)
    return Status::at(Error::bad_header, "header", header::min_reader_minor,
                      "min_reader_minor %u is above the file's format_minor %u", l.min_reader_minor, l.format_minor);
  if (l.min_reader_minor > kFormatMinor)
    return Status::at(Error::needs_newer_reader, "header", header::min_reader_minor,
                      "file %u.%u needs a reader of format %u.%u or later, this reader implements %u.%u",
                      l.format_major, l.format_minor, l.format_major, l.min_reader_minor, kFormatMajor, kFormatMinor);
  l.header_size = bytes::load_u16(d + header::header_size);
  if (l.header_size < header::size || l.header_size % 8 != 0)
    return Status::at(Error::bad_header, "header", header::header_size,
                      "header_size %u, expected a multiple of 8 of at least 64", l.header_size);
  l.entry_size = bytes::load_u16(d + header::entry_size);
  if (l.entry_size < entry::entry_size || l.entry_size % 8 != 0)
    return Status::at(Error::bad_header, "header", header::entry_size,
                      "entry_size %u, expected a multiple of 8 of at least 32", l.entry_size);
  l.file_size = bytes::load_u64(d + header::file_size);
  if (l.file_size > c.size)
    return Status::at(Error::truncated, "header", header::file_size, "the header declares %llu bytes, %llu present",
                      ull(l.file_size), ull(c.size));
  if (l.file_size < c.size)
    return Status::at(Error::trailing_bytes, "file", l.file_size, "the header declares %llu bytes, the file has %llu",
                      ull(l.file_size), ull(c.size));
  l.section_count = bytes::load_u16(d + header::section_count);
  const std::uint32_t max_sections = c.opts.max_sections < kMaxSectionCount ? c.opts.max_sections : kMaxSectionCount;
  if (l.section_count > max_sections)
    return Status::at(Error::too_many_sections, "header", header::section_count, "%u sections, limit max_sections %lu",
                      l.section_count, ul(max_sections));
  l.table_end = std::uint64_t{l.header_size} + std::uint64_t{l.section_count} * l.entry_size;
  if (l.table_end > c.size)
    return Status::at(Error::truncated, "section table", l.header_size,
                      "%u entries of %u bytes end at %llu, after the end of the file at %llu", l.section_count,
                      l.entry_size, ull(l.table_end), ull(c.size));
  std::uint32_t crc = crc32c(d, header::checksum);
  crc = crc32c_extend(crc, d + header::size, static_cast<std::size_t>(l.table_end - header::size));
  const std::uint32_t stored = bytes::load_u32(d + header::checksum);
  if (crc != stored)
    return Status::at(Error::bad_header_checksum, "header", header::checksum, "stored 0x%08lx, computed 0x%08lx",
                      ul(stored), ul(crc));
  l.flags = bytes::load_u32(d + header::flags);
  if ((l.flags & ~header::flags_known) != 0)
    return Status::at(Error::reserved_flag, "header", header::flags, "flags 0x%08lx; format 1.0 defines none",
                      ul(l.flags));
  if (Status s = c.check_zero(0, "header", header::reserved, header::checksum - header::reserved); !s.ok()) return s;
  l.writer_major = bytes::load_u16(d + header::writer_major);
  l.writer_minor = bytes::load_u16(d + header::writer_minor);
  l.writer_patch = bytes::load_u16(d + header::writer_patch);
  return {};
}

// The entries one by one: order, flags, alignment, bounds.
inline Status verify_entries(VerifyContext& c) noexcept {
  Layout& l = c.layout;
  std::uint32_t previous = 0;
  for (std::uint32_t i = 0; i < l.section_count; ++i) {
    const std::uint64_t e = l.header_size + std::uint64_t{i} * l.entry_size;
    const std::uint8_t* p = c.data + e;
    const std::uint32_t type = bytes::load_u32(p + entry::type);
    const std::uint32_t flags = bytes::load_u32(p + entry::flags);
    const std::uint64_t offset = bytes::load_u64(p + entry::offset);
    const std::uint64_t size = bytes::load_u64(p + entry::size);
    if (Status s = c.check_zero(0, "section table", e + entry::reserved, 4); !s.ok()) return s;
    if ((flags & ~kSectionFlagsKnown) != 0)
      return Status::at(Error::reserved_flag, "section table", e + entry::flags, "entry %lu has flags 0x%08lx",
                        ul(i), ul(flags));
    if (type <= previous)
      return Status::at(Error::section_order, "section table", e + entry::type,
                        "entry %lu has type %lu after type %lu", ul(i), ul(type), ul(previous));
    previous = type;
    if (offset % kSectionAlignment != 0)
      return Status::in_section(Error::section_misaligned, type, e + entry::offset, "offset %llu", ull(offset));
    if (!(size <= l.file_size && offset <= l.file_size - size))
      return Status::in_section(Error::section_out_of_bounds, type, e + entry::offset,
                                "offset %llu + size %llu is past the end of the file at %llu", ull(offset), ull(size),
                                ull(l.file_size));
    if (offset < l.table_end)
      return Status::in_section(Error::section_overlap, type, e + entry::offset,
                                "offset %llu is inside the header and section table, which end at %llu", ull(offset),
                                ull(l.table_end));
    const SectionSpec* spec = section_spec(type);
    if (!spec && (flags & kSectionMaySkip) == 0)
      return Status::in_section(Error::unknown_section, type, e + entry::type,
                                "format %u.%u knows types %lu..%lu; this one is not marked may_skip", kFormatMajor,
                                kFormatMinor, ul(kFirstSectionType), ul(kLastSectionType));
    if (spec) {
      SectionRef& r = l.sections[type];
      r.offset = offset;
      r.size = size;
    }
  }
  return {};
}

// Sections in file order: no overlap, zero bytes in between and after.
inline Status verify_placement(VerifyContext& c) noexcept {
  const Layout& l = c.layout;
  std::uint16_t order[kMaxSectionCount];
  auto offset_of = [&](std::uint32_t i) {
    return bytes::load_u64(c.data + l.header_size + std::uint64_t{i} * l.entry_size + entry::offset);
  };
  for (std::uint16_t i = 0; i < l.section_count; ++i) {  // insertion sort by offset, at most 256 entries
    std::uint16_t k = i;
    while (k > 0 && offset_of(order[k - 1]) > offset_of(i)) {
      order[k] = order[k - 1];
      --k;
    }
    order[k] = i;
  }
  std::uint64_t cursor = l.table_end;
  std::uint32_t previous_type = 0;
  for (std::uint16_t k = 0; k < l.section_count; ++k) {
    const std::uint8_t* p = c.data + l.header_size + std::uint64_t{order[k]} * l.entry_size;
    const std::uint32_t type = bytes::load_u32(p + entry::type);
    const std::uint64_t offset = bytes::load_u64(p + entry::offset);
    const std::uint64_t size = bytes::load_u64(p + entry::size);
    if (offset < cursor)
      return Status::in_section(Error::section_overlap, type, offset,
                                "it starts inside section '%s', which ends at %llu", section_name(previous_type),
                                ull(cursor));
    for (std::uint64_t b = cursor; b < offset; ++b)
      if (c.data[b] != 0)
        return Status::at(Error::nonzero_padding, "file", b, "byte 0x%02x before section '%s'",
                          static_cast<unsigned>(c.data[b]), section_name(type));
    cursor = offset + size;
    previous_type = type;
  }
  for (std::uint64_t b = cursor; b < l.file_size; ++b)
    if (c.data[b] != 0)
      return Status::at(Error::nonzero_padding, "file", b, "byte 0x%02x after the last section",
                        static_cast<unsigned>(c.data[b]));
  return {};
}

inline Status verify_checksums(const VerifyContext& c) noexcept {
  const Layout& l = c.layout;
  for (std::uint32_t i = 0; i < l.section_count; ++i) {
    const std::uint64_t e = l.header_size + std::uint64_t{i} * l.entry_size;
    const std::uint8_t* p = c.data + e;
    const std::uint64_t offset = bytes::load_u64(p + entry::offset);
    const std::uint64_t size = bytes::load_u64(p + entry::size);
    const std::uint32_t stored = bytes::load_u32(p + entry::checksum);
    const std::uint32_t crc = crc32c(c.data + offset, static_cast<std::size_t>(size));
    if (crc != stored)
      return Status::in_section(Error::bad_section_checksum, bytes::load_u32(p + entry::type), e + entry::checksum,
                                "stored 0x%08lx, computed 0x%08lx over %llu bytes at %llu", ul(stored), ul(crc),
                                ull(size), ull(offset));
  }
  return {};
}

// Every known section: present, and its section header consistent with its size.
inline Status verify_section_headers(VerifyContext& c) noexcept {
  Layout& l = c.layout;
  for (std::uint32_t type = kFirstSectionType; type <= kLastSectionType; ++type) {
    SectionRef& r = l.sections[type];
    const SectionSpec& spec = *section_spec(type);
    if (r.offset == 0) {
      if (!spec.required) continue;  // a later minor's optional section (machine_model): absent is no error
      return Status::in_section(Error::missing_section, type, kNoOffset, "format 1.0 requires it");
    }
    if (r.size < section::size)
      return Status::in_section(Error::bad_section_size, type, r.offset,
                                "%llu bytes, smaller than the 8-byte section header", ull(r.size));
    r.count = bytes::load_u32(c.data + r.offset + section::count);
    r.record_size = bytes::load_u32(c.data + r.offset + section::record_size);
    r.records = r.offset + section::size;
    if (spec.shape == SectionShape::records) {
      if (r.record_size < spec.min_record_size || r.record_size % 8 != 0)
        return Status::in_section(Error::bad_record_size, type, r.offset + section::record_size,
                                  "record size %lu, format %u.%u needs a multiple of 8 of at least %lu",
                                  ul(r.record_size), kFormatMajor, kFormatMinor, ul(spec.min_record_size));
    } else if (r.record_size != spec.min_record_size) {
      return Status::in_section(Error::bad_record_size, type, r.offset + section::record_size,
                                "record size %lu, expected %lu", ul(r.record_size), ul(spec.min_record_size));
    }
    const std::uint64_t body = r.size - section::size;
    if (r.count > body / r.record_size)
      return Status::in_section(Error::count_exceeds_size, type, r.offset + section::count,
                                "count %lu, room for %llu records of %lu bytes", ul(r.count),
                                ull(body / r.record_size), ul(r.record_size));
    const std::uint64_t used = std::uint64_t{r.count} * r.record_size;
    if (spec.shape != SectionShape::strings && used != body)
      return Status::in_section(Error::bad_section_size, type, r.records + used, "%llu bytes after the %lu records",
                                ull(body - used), ul(r.count));
  }
  return {};
}

// The string table: `count` u32 end offsets, then the bytes. String i spans
// [end[i-1], end[i]) (end[-1] = 0), its last byte is its NUL terminator, it
// holds no other NUL, and it is valid UTF-8.
inline Status verify_strings(VerifyContext& c) noexcept {
  Layout& l = c.layout;
  const SectionRef& r = l[SectionType::strings];
  const auto type = static_cast<std::uint32_t>(SectionType::strings);
  l.string_bytes = r.records + std::uint64_t{r.count} * 4u;
  const std::uint64_t total = r.offset + r.size - l.string_bytes;
  const std::uint8_t* bytes_start = c.data + l.string_bytes;
  std::uint32_t start = 0;
  for (std::uint32_t i = 0; i < r.count; ++i) {
    const std::uint64_t at = r.records + 4u * std::uint64_t{i};
    const std::uint32_t end = bytes::load_u32(c.data + at);
    if (end <= start)
      return Status::in_section(Error::bad_string, type, at, "string %lu ends at %lu, not after its start %lu", ul(i),
                                ul(end), ul(start));
    if (end > total)
      return Status::in_section(Error::bad_string, type, at, "string %lu ends at %lu, past the %llu string bytes",
                                ul(i), ul(end), ull(total));
    const std::size_t length = end - start - 1u;
    if (bytes_start[end - 1] != 0)
      return Status::in_section(Error::bad_string, type, l.string_bytes + end - 1, "string %lu is not NUL-terminated",
                                ul(i));
    if (const void* nul = std::memchr(bytes_start + start, 0, length))
      return Status::in_section(Error::bad_string, type,
                                l.string_bytes + static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(nul) - bytes_start),
                                "string %lu contains a NUL byte", ul(i));
    const std::size_t bad = utf8_invalid_at(bytes_start + start, length);
    if (bad != length)
      return Status::in_section(Error::bad_string, type, l.string_bytes + start + bad, "string %lu is not valid UTF-8",
                                ul(i));
    start = end;
  }
  if (start != total)
    return Status::in_section(Error::bad_section_size, type, l.string_bytes + start, "%llu bytes after the last string",
                              ull(total - start));
  return {};
}

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
