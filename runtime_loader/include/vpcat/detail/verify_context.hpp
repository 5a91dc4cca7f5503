// Shared state of one verification: the buffer, the options, and the
// Layout being filled. Internal to verify.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vpcat/detail/records.hpp"
#include "vpcat/layout.hpp"
#include "vpcat/options.hpp"
#include "vpcat/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

inline bool finite_at_least_zero(double v) noexcept { return std::isfinite(v) && v >= 0.0; }
inline bool finite_positive(double v) noexcept { return std::isfinite(v) && v > 0.0; }
// A capacity a reader divides by: > 0, finite and normal (no NaN, infinity
// or denormal: 1 / denormal overflows and rates below 2^-1022 GB/s are no
// real capacity); `or_zero`: 0 too, where 0 means "none".
inline bool positive_normal(double v) noexcept { return std::isnormal(v) && v > 0.0; }
inline bool positive_normal_or_zero(double v) noexcept { return v == 0.0 || positive_normal(v); }

inline unsigned long long ull(std::uint64_t v) noexcept { return static_cast<unsigned long long>(v); }
inline unsigned long ul(std::uint32_t v) noexcept { return static_cast<unsigned long>(v); }

struct VerifyContext {
  const std::uint8_t* data;
  std::size_t size;
  const VerifyOptions& opts;
  Layout& layout;

  Records records(SectionType t) const noexcept { return Records(data, layout, t); }

  // A string index must name an entry of the string table.
  Status check_string(const Records& r, std::uint64_t i, std::size_t field, const char* what) const noexcept {
    const std::uint32_t s = r.u32(i, field);
    const std::uint32_t n = layout[SectionType::strings].count;
    if (s >= n)
      return Status::in_section(Error::bad_string_ref, r.type, r.at(i, field),
                                "record %llu: %s is string %lu, the string table has %lu",
                                ull(i), what, ul(s), ul(n));
    return {};
  }

  // A string holding a decimal integer ("0" or no leading zero).
  Status check_decimal(const Records& r, std::uint64_t i, std::size_t field, const char* what) const noexcept {
    if (Status s = check_string(r, i, field, what); !s.ok()) return s;
    const std::string_view v = string_at(data, layout, r.u32(i, field));
    bool ok = !v.empty() && (v.size() == 1 || v[0] != '0');
    for (char c : v) ok = ok && c >= '0' && c <= '9';
    if (!ok)
      return Status::in_section(Error::bad_decimal, r.type, r.at(i, field), "record %llu: %s",
                                ull(i), what);
    return {};
  }

  // Bytes [offset, offset + n) must be zero.
  Status check_zero(std::uint32_t type, const char* where, std::uint64_t offset, std::size_t n) const noexcept {
    for (std::size_t k = 0; k < n; ++k) {
      if (data[offset + k] != 0) {
        if (type != 0)
          return Status::in_section(Error::reserved_nonzero, type, offset + k, "byte 0x%02x",
                                    static_cast<unsigned>(data[offset + k]));
        return Status::at(Error::reserved_nonzero, where, offset + k, "byte 0x%02x",
                          static_cast<unsigned>(data[offset + k]));
      }
    }
    return {};
  }
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
