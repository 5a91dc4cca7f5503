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

#include "vpcat/detail/message.hpp"
#include "vpcat/format.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// The codes, names and base messages: vpcat/status_codes.def, the one error
// catalogue of the runtime (and of vpcat.h).
enum class Error : std::uint16_t {
#define VPCAT_READER_STATUS(name, c_constant, code, message) name = code,
#include "vpcat/status_codes.def"
};

struct ErrorInfo {
  Error code;
  const char* name;     // stable identifier: "bad_magic"
  const char* message;  // stable base message: "not a .vpcat file (bad signature)"
};

inline constexpr ErrorInfo kErrors[] = {
#define VPCAT_READER_STATUS(name, c_constant, code, message) {Error::name, #name, message},
#include "vpcat/status_codes.def"
};
inline constexpr std::uint16_t kLastError = static_cast<std::uint16_t>(sizeof(kErrors) / sizeof(kErrors[0]) - 1);

namespace detail {
// error_info() indexes kErrors by code: the reader's codes are 0, 1, 2, ...
constexpr bool dense_error_codes() {
  for (std::uint16_t i = 0; i <= kLastError; ++i)
    if (static_cast<std::uint16_t>(kErrors[i].code) != i) return false;
  return true;
}
static_assert(dense_error_codes(), "vpcat/status_codes.def: reader codes must be 0, 1, 2, ... in order");
}  // namespace detail

inline const ErrorInfo& error_info(Error e) noexcept {
  const auto i = static_cast<std::uint16_t>(e);
  return kErrors[i <= kLastError ? i : 0];
}

inline constexpr std::uint64_t kNoOffset = ~std::uint64_t{0};

class Status {
 public:
  // Success. User-provided, so that `return {};` does not zero the message
  // buffer (value-initialization of a defaulted constructor would): the
  // verifier's checks return success hundreds of thousands of times per file.
  Status() noexcept {}
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
    detail::format_message(message_, sizeof message_, where, offset != kNoOffset, static_cast<unsigned long long>(offset),
                           error_info(code).message, detail, args);
  }

  void copy_message(const Status& o) noexcept {
    if (!o.ok()) std::memcpy(message_, o.message_, std::strlen(o.message_) + 1);
  }

  Error code_ = Error::ok;
  std::uint32_t section_ = 0;
  std::uint64_t offset_ = kNoOffset;
  char message_[320];  // NUL-terminated when !ok(); unused otherwise
};

}  // namespace v0_1
}  // namespace vpcat
