// The slicing-by-8 tables of vpcat/crc32c.hpp, computed at compile time.
#pragma once

#include <cstdint>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

struct Crc32cTables {
  std::uint32_t t[8][256];
};

constexpr Crc32cTables make_crc32c_tables() {
  Crc32cTables r{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    r.t[0][i] = crc;
  }
  for (int k = 1; k < 8; ++k)
    for (std::uint32_t i = 0; i < 256; ++i) r.t[k][i] = (r.t[k - 1][i] >> 8) ^ r.t[0][r.t[k - 1][i] & 0xFFu];
  return r;
}

inline constexpr Crc32cTables kCrc32cTables = make_crc32c_tables();

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
