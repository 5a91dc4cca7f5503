// Little-endian scalar access to byte buffers.
//
// Every multi-byte field of a .vpcat file is little-endian. Scalars are
// assembled from bytes (compilers turn this into one load on little-endian
// machines), never read through a reinterpret_cast pointer, so neither the
// host's byte order nor the buffer's alignment matters.
//
// Contract: `p` points to at least sizeof(T) readable (or writable) bytes.
// These functions do no bounds checking: the verifier (verify.hpp) proves the
// ranges before anything reads them.
#pragma once

#include <cstdint>
#include <cstring>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace bytes {

inline std::uint8_t load_u8(const std::uint8_t* p) noexcept { return p[0]; }

inline std::uint16_t load_u16(const std::uint8_t* p) noexcept {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

inline std::uint32_t load_u32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

inline std::uint64_t load_u64(const std::uint8_t* p) noexcept {
  return static_cast<std::uint64_t>(load_u32(p)) | (static_cast<std::uint64_t>(load_u32(p + 4)) << 32);
}

inline std::int32_t load_i32(const std::uint8_t* p) noexcept {
  const std::uint32_t u = load_u32(p);
  std::int32_t v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

// IEEE 754 binary64, little-endian.
inline double load_f64(const std::uint8_t* p) noexcept {
  const std::uint64_t u = load_u64(p);
  double v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

inline void store_u8(std::uint8_t* p, std::uint8_t v) noexcept { p[0] = v; }

inline void store_u16(std::uint8_t* p, std::uint16_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

inline void store_u32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

inline void store_u64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

inline void store_i32(std::uint8_t* p, std::int32_t v) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  store_u32(p, u);
}

inline void store_f64(std::uint8_t* p, double v) noexcept {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  store_u64(p, u);
}

}  // namespace bytes
}  // namespace v0_1
}  // namespace vpcat
