// The result of every vpcat operation that can fail: a numbered error code,
// where it happened (header, section table, or a section) and at which byte
// offset, and a message that reads "where: what (why)":
//
//   section 'patterns' at offset 0x1a0: count exceeds the section size
//     (count 4294967295, room for 12 records of 8 bytes)
//
// Codes are never renumbered; each has a stable name and a stable base
// message (the part before the parenthesis), listed in SPEC.md "Error
// catalogue". The details in parentheses may improve between releases.
//
// A Status is a value that never allocates; its message lives in an inline
// buffer, so it can be returned through a C API as is. Success is cheap to
// create and copy (the buffer is touched only for failures), which matters
// because the verifier passes one along for every field it checks.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "vpcat/format.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v1 {

enum class Error : std::uint16_t {
  ok = 0,
  io_error = 1,
  file_too_large = 2,
  truncated = 3,
  bad_magic = 4,
  unsupported_major = 5,
  needs_newer_reader = 6,
  bad_header = 7,
  trailing_bytes = 8,
  bad_header_checksum = 9,
  reserved_nonzero = 10,
  reserved_flag = 11,
  too_many_sections = 12,
  section_order = 13,
  section_out_of_bounds = 14,
  section_misaligned = 15,
  section_overlap = 16,
  nonzero_padding = 17,
  bad_section_checksum = 18,
  unknown_section = 19,
  missing_section = 20,
  bad_record_size = 21,
  count_exceeds_size = 22,
  bad_section_size = 23,
  bad_string = 24,
  bad_string_ref = 25,
  bad_range = 26,
  bad_id = 27,
  bad_enum = 28,
  bad_number = 29,
  bad_tree = 30,
  bad_link = 31,
  bad_route = 32,
  bad_permutation = 33,
  bad_orbit = 34,
  bad_pattern = 35,
  bad_order = 36,
  bad_fabric = 37,
  bad_count = 38,
  limit_exceeded = 39,
  bad_decimal = 40,
};
inline constexpr std::uint16_t kLastError = 40;

struct ErrorInfo {
  Error code;
  const char* name;     // stable identifier: "bad_magic"
  const char* message;  // stable base message: "not a .vpcat file (bad signature)"
};

inline constexpr ErrorInfo kErrors[] = {
    {Error::ok, "ok", "ok"},
    {Error::io_error, "io_error", "cannot read the file"},
    {Error::file_too_large, "file_too_large", "file exceeds the size limit"},
    {Error::truncated, "truncated", "file is truncated"},
    {Error::bad_magic, "bad_magic", "not a .vpcat file"},
    {Error::unsupported_major, "unsupported_major", "unsupported format major version"},
    {Error::needs_newer_reader, "needs_newer_reader", "file needs a newer reader"},
    {Error::bad_header, "bad_header", "malformed header field"},
    {Error::trailing_bytes, "trailing_bytes", "file is longer than its header declares"},
    {Error::bad_header_checksum, "bad_header_checksum", "header checksum mismatch"},
    {Error::reserved_nonzero, "reserved_nonzero", "reserved bytes are not zero"},
    {Error::reserved_flag, "reserved_flag", "reserved flag bit is set"},
    {Error::too_many_sections, "too_many_sections", "too many sections"},
    {Error::section_order, "section_order", "section table is not in increasing type order"},
    {Error::section_out_of_bounds, "section_out_of_bounds", "section lies outside the file"},
    {Error::section_misaligned, "section_misaligned", "section offset is not 8-byte aligned"},
    {Error::section_overlap, "section_overlap", "sections overlap"},
    {Error::nonzero_padding, "nonzero_padding", "padding between sections is not zero"},
    {Error::bad_section_checksum, "bad_section_checksum", "section checksum mismatch"},
    {Error::unknown_section, "unknown_section", "unknown section type that may not be skipped"},
    {Error::missing_section, "missing_section", "required section is missing"},
    {Error::bad_record_size, "bad_record_size", "unsupported record size"},
    {Error::count_exceeds_size, "count_exceeds_size", "count exceeds the section size"},
    {Error::bad_section_size, "bad_section_size", "section size does not match its contents"},
    {Error::bad_string, "bad_string", "malformed string table"},
    {Error::bad_string_ref, "bad_string_ref", "string index out of range"},
    {Error::bad_range, "bad_range", "record range does not match the layout"},
    {Error::bad_id, "bad_id", "id out of range"},
    {Error::bad_enum, "bad_enum", "unknown enumeration value"},
    {Error::bad_number, "bad_number", "number out of range"},
    {Error::bad_tree, "bad_tree", "malformed PCIe tree"},
    {Error::bad_link, "bad_link", "malformed link"},
    {Error::bad_route, "bad_route", "malformed route"},
    {Error::bad_permutation, "bad_permutation", "generator is not a kind-preserving permutation"},
    {Error::bad_orbit, "bad_orbit", "malformed orbit"},
    {Error::bad_pattern, "bad_pattern", "malformed local pattern"},
    {Error::bad_order, "bad_order", "records are not in canonical order"},
    {Error::bad_fabric, "bad_fabric", "fabric is inconsistent with the nodes"},
    {Error::bad_count, "bad_count", "inconsistent count"},
    {Error::limit_exceeded, "limit_exceeded", "a configured limit is exceeded"},
    {Error::bad_decimal, "bad_decimal", "not a decimal integer"},
};
static_assert(sizeof(kErrors) / sizeof(kErrors[0]) == kLastError + 1);

inline const ErrorInfo& error_info(Error e) noexcept {
  const auto i = static_cast<std::uint16_t>(e);
  return kErrors[i <= kLastError ? i : 0];
}

inline constexpr std::uint64_t kNoOffset = ~std::uint64_t{0};

class Status {
 public:
  // Success.
  Status() noexcept = default;
  Status(const Status& o) noexcept : code_(o.code_), section_(o.section_), offset_(o.offset_) { copy_message(o); }
  Status& operator=(const Status& o) noexcept {
    code_ = o.code_, section_ = o.section_, offset_ = o.offset_;
    copy_message(o);
    return *this;
  }

  // A failure in a section (type id, known or not) at absolute byte
  // `offset`; `detail` is a printf format for the "(why)" part, or nullptr.
  static Status in_section(Error code, std::uint32_t type, std::uint64_t offset, const char* detail, ...) noexcept
#if defined(__GNUC__)
      __attribute__((format(printf, 4, 5)))
#endif
  {
    char where[48];
    if (section_spec(type))
      std::snprintf(where, sizeof where, "section '%s'", section_name(type));
    else
      std::snprintf(where, sizeof where, "section type %lu", static_cast<unsigned long>(type));
    std::va_list args;
    va_start(args, detail);
    Status s(code, type, offset, where, detail, args);
    va_end(args);
    return s;
  }

  // A failure outside the sections: `where` is "header", "section table",
  // "file" or a path; offset may be kNoOffset.
  static Status at(Error code, const char* where, std::uint64_t offset, const char* detail, ...) noexcept
#if defined(__GNUC__)
      __attribute__((format(printf, 4, 5)))
#endif
  {
    std::va_list args;
    va_start(args, detail);
    Status s(code, 0, offset, where, detail, args);
    va_end(args);
    return s;
  }

  bool ok() const noexcept { return code_ == Error::ok; }
  Error code() const noexcept { return code_; }
  // Section type the failure is in; 0 outside sections.
  std::uint32_t section() const noexcept { return section_; }
  // Absolute byte offset of the failing field; kNoOffset when none applies.
  std::uint64_t offset() const noexcept { return offset_; }
  // The whole message, NUL-terminated; "ok" on success.
  const char* message() const noexcept { return code_ == Error::ok ? "ok" : message_; }

 private:
  Status(Error code, std::uint32_t section, std::uint64_t offset, const char* where, const char* detail,
         std::va_list args) noexcept
      : code_(code), section_(section), offset_(offset) {
    int n;
    if (offset == kNoOffset)
      n = std::snprintf(message_, sizeof message_, "%s: %s", where, error_info(code).message);
    else
      n = std::snprintf(message_, sizeof message_, "%s at offset 0x%llx: %s", where,
                        static_cast<unsigned long long>(offset), error_info(code).message);
    if (detail == nullptr || n < 0 || static_cast<std::size_t>(n) + 4 >= sizeof message_) return;
    auto used = static_cast<std::size_t>(n);
    message_[used++] = ' ';
    message_[used++] = '(';
    int d = std::vsnprintf(message_ + used, sizeof message_ - used - 1, detail, args);
    if (d < 0) d = 0;
    used += static_cast<std::size_t>(d);
    if (used > sizeof message_ - 2) used = sizeof message_ - 2;  // vsnprintf truncated the detail
    message_[used++] = ')';
    message_[used] = '\0';
  }

  void copy_message(const Status& o) noexcept {
    if (!o.ok()) std::memcpy(message_, o.message_, std::strlen(o.message_) + 1);
  }

  Error code_ = Error::ok;
  std::uint32_t section_ = 0;
  std::uint64_t offset_ = kNoOffset;
  char message_[320];  // NUL-terminated when !ok(); unused otherwise
};

}  // namespace v1
}  // namespace vpcat
