// The one formatter of the runtime's error messages, "where: what (why)",
// used by vpcat::Status (reader), vpcat::PlanStatus (planner) and the C
// API's own failures (src/c_common.cpp):
//
//   section 'patterns' at offset 0x1a0: count exceeds the section size (count 4294967295, ...)
//
// It writes into a caller's fixed buffer and never allocates; a detail too
// long for the buffer is cut, and the closing parenthesis kept.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// "WHERE: BASE" or, with `has_offset`, "WHERE at offset 0xOFF: BASE", then
// " (DETAIL)" when `detail` (a printf format over `args`) is not nullptr.
// `out` of `size` >= 8 bytes receives the NUL-terminated message.
inline void format_message(char* out, std::size_t size, const char* where, bool has_offset, unsigned long long offset,
                           const char* base, const char* detail, std::va_list args) noexcept {
  const int n = has_offset ? std::snprintf(out, size, "%s at offset 0x%llx: %s", where, offset, base)
                           : std::snprintf(out, size, "%s: %s", where, base);
  if (detail == nullptr || n < 0 || static_cast<std::size_t>(n) + 4 >= size) return;
  auto used = static_cast<std::size_t>(n);
  out[used++] = ' ';
  out[used++] = '(';
  int d = std::vsnprintf(out + used, size - used - 1, detail, args);
  if (d < 0) d = 0;
  used += static_cast<std::size_t>(d);
  if (used > size - 2) used = size - 2;  // vsnprintf cut the detail
  out[used++] = ')';
  out[used] = '\0';
}

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
