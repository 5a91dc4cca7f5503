// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of the
// .vpcat header and sections. Software slicing-by-8, about 2 GB/s; no
// dependency on SSE 4.2 so that the result is the same on every machine.
//
// Check value: crc32c("123456789") == 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/bytes.hpp"
#include "vpcat/detail/crc32c_tables.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
// Extend `crc` (the CRC-32C of the bytes before `p`; 0 for none) over n more
// bytes. crc32c_extend(crc32c_extend(0, a, n), b, m) equals the CRC of a
// followed by b.
inline std::uint32_t crc32c_extend(std::uint32_t crc, const std::uint8_t* p, std::size_t n) noexcept {
  const auto& t = detail::kCrc32cTables.t;
  crc = ~crc;
  while (n >= 8) {
    const std::uint32_t lo = bytes::load_u32(p) ^ crc;
    const std::uint32_t hi = bytes::load_u32(p + 4);
    crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^
          t[3][hi & 0xFFu] ^ t[2][(hi >> 8) & 0xFFu] ^ t[1][(hi >> 16) & 0xFFu] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xFFu];
  return ~crc;
}

inline std::uint32_t crc32c(const std::uint8_t* p, std::size_t n) noexcept { return crc32c_extend(0, p, n); }

}  // namespace v0_1
}  // namespace vpcat
