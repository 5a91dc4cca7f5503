// UTF-8 (RFC 3629): the one decoder of the project. The verifier checks a
// catalog's strings with it, the tools their inputs' text, the pictures
// escape names with it (vp/base/xml.hpp).
//
// Valid means: no overlong form, no surrogate (U+D800..U+DFFF), nothing
// above U+10FFFF, no truncated sequence. The noncharacters U+FFFE and U+FFFF
// ARE valid UTF-8 (RFC 3629 excludes only surrogates and what lies above
// U+10FFFF; Unicode's "noncharacters" are scalar values that a string may
// hold). A format that forbids them, such as XML 1.0's Char production,
// says so itself (vp::escape_xml).
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// The length (1 to 4) of the valid UTF-8 sequence at p[0..n), and its code
// point in *code_point when not null; 0 when the bytes there are not valid
// UTF-8 or n is 0.
inline std::size_t utf8_sequence(const std::uint8_t* p, std::size_t n, char32_t* code_point = nullptr) noexcept {
  if (n == 0) return 0;
  const std::uint8_t c = p[0];
  if (c < 0x80) {
    if (code_point != nullptr) *code_point = c;
    return 1;
  }
  std::size_t len;
  std::uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  char32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0Fu;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07u;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
  }
  if (n < len || p[1] < lo || p[1] > hi) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if (p[k] < 0x80 || p[k] > 0xBF) return 0;
    cp = (cp << 6) | (p[k] & 0x3Fu);
  }
  if (code_point != nullptr) *code_point = cp;
  return len;
}

// Returns n when p[0..n) is valid UTF-8, else the index of the first byte of
// the first invalid sequence.
inline std::size_t utf8_invalid_at(const std::uint8_t* p, std::size_t n) noexcept {
  std::size_t i = 0;
  while (i < n) {
    const std::size_t len = utf8_sequence(p + i, n - i);
    if (len == 0) return i;
    i += len;
  }
  return n;
}

}  // namespace v0_1
}  // namespace vpcat
