// UTF-8 validation (RFC 3629): no overlong forms, no surrogates, nothing
// above U+10FFFF.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// Returns n when p[0..n) is valid UTF-8, else the index of the first byte of
// the first invalid sequence.
inline std::size_t utf8_invalid_at(const std::uint8_t* p, std::size_t n) noexcept {
  std::size_t i = 0;
  while (i < n) {
    const std::uint8_t c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (n - i < len || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += len;
  }
  return n;
}

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
