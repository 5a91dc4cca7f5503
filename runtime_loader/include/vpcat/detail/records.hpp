// Typed reads of the verified records and strings of a .vpcat buffer: what
// the verifier and CatalogView read through. Internal to the runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vpcat/bytes.hpp"
#include "vpcat/format.hpp"
#include "vpcat/layout.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// Typed access to the records of one section. Precondition for every
// accessor: the record index and field lie inside the section (proven by
// the verifier before use).
struct Records {
  const std::uint8_t* data = nullptr;  // start of the file
  SectionRef ref;
  std::uint32_t type = 0;

  Records() noexcept = default;
  Records(const std::uint8_t* d, const Layout& l, SectionType t) noexcept
      : data(d), ref(l[t]), type(static_cast<std::uint32_t>(t)) {}

  std::uint32_t count() const noexcept { return ref.count; }
  // Absolute offset of `field` in record i.
  std::uint64_t at(std::uint64_t i, std::size_t field = 0) const noexcept {
    return ref.records + i * ref.record_size + field;
  }
  const std::uint8_t* ptr(std::uint64_t i, std::size_t field = 0) const noexcept { return data + at(i, field); }
  std::uint8_t u8(std::uint64_t i, std::size_t f) const noexcept { return bytes::load_u8(ptr(i, f)); }
  std::uint32_t u32(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_u32(ptr(i, f)); }
  std::uint64_t u64(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_u64(ptr(i, f)); }
  std::int32_t i32(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_i32(ptr(i, f)); }
  double f64(std::uint64_t i, std::size_t f = 0) const noexcept { return bytes::load_f64(ptr(i, f)); }
};

// String i of a verified strings section (without its NUL terminator).
inline std::string_view string_at(const std::uint8_t* data, const Layout& l, std::uint32_t i) noexcept {
  const SectionRef& s = l[SectionType::strings];
  const std::uint32_t start = i == 0 ? 0 : bytes::load_u32(data + s.records + 4u * (i - 1));
  const std::uint32_t end = bytes::load_u32(data + s.records + 4u * i);
  return {reinterpret_cast<const char*>(data + l.string_bytes + start), end - start - 1u};
}

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
