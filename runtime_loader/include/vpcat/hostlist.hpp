// Host lists ("gpu[001-032]", "a[1-2]b[1-2],login"): the one parser of the
// project. The verifier counts a node group's names with it (SPEC.md §6.8),
// the MPI executor, the Python binding and the tools expand them with it.
//
// Grammar (SPEC.md §6.8): items separated by ','; an item is a non-empty
// sequence of host characters (ASCII letters and digits, '-', '.', '_') and
// bracket groups; a group is '[' ranges separated by ',' ']', a range "N" or
// "N-M" (decimal, N <= M, below 2^64) expanding to N..M padded with zeros to
// the width of N. An item expands to the product of its groups (leftmost
// varying slowest); the expression to the concatenation of its items.
//
//   std::uint64_t n;  vpcat::HostlistError e;
//   if (!vpcat::count_hostlist("gpu[01-04]", vpcat::kMaxHostlistNames, &n, &e)) puts(e.what);
//   std::vector<std::string> names;
//   if (!vpcat::expand_hostlist("gpu[01-04]", &names, &e)) puts(e.what);   // gpu01 .. gpu04
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// What is wrong with a host list: "unclosed '[' at column 4", "decreasing
// range 3-1", "more than 1000000 host names" (without the expression).
struct HostlistError {
  std::size_t column = 0;  // 1-based column of the problem; 0 when it is about the whole expression
  char what[96] = {};
};

// The most names expand_hostlist() produces by default.
inline constexpr std::uint64_t kMaxHostlistNames = 1000000;

// Whether `c` may appear in a host name.
inline bool is_host_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_';
}

// Whether `name` is a host name: not empty, host characters only.
inline bool is_host_name(std::string_view name) noexcept {
  if (name.empty()) return false;
  for (char c : name)
    if (!is_host_char(c)) return false;
  return true;
}

}  // namespace v0_1
}  // namespace vpcat

// The walk over a host list (internal), on the types above.
#include "vpcat/detail/hostlist_walk.hpp"

namespace vpcat {
inline namespace v0_1 {

// Checks `s` and counts its names. True with *count set when `s` is a host
// list; a count above `limit` is reported as limit + 1 ("more than limit").
// False, with *err filled when not null, on a syntax error.
inline bool count_hostlist(std::string_view s, std::uint64_t limit, std::uint64_t* count,
                           HostlistError* err) noexcept {
  const std::uint64_t cap = limit == ~std::uint64_t{0} ? limit : limit + 1;
  return detail::walk_hostlist<detail::NoHostlistVisitor>(s, cap, count, err, nullptr);
}

// The names of `s`, appended to *out, when it is a host list of at most
// `limit` names. False, with *err filled when not null and *out unchanged,
// on a syntax error or more names ("more than 1000000 host names"). It
// allocates: std::bad_alloc is the only exception it lets through.
inline bool expand_hostlist(std::string_view s, std::vector<std::string>* out, HostlistError* err,
                            std::uint64_t limit = kMaxHostlistNames) {
  std::uint64_t n = 0;
  if (!count_hostlist(s, limit, &n, err)) return false;
  if (n > limit)
    return detail::hostlist_fail(err, 0, "more than %llu host names", static_cast<unsigned long long>(limit));
  out->reserve(out->size() + static_cast<std::size_t>(n));
  detail::HostlistBuilder b(out);
  std::uint64_t again = 0;
  detail::walk_hostlist(s, ~std::uint64_t{0}, &again, nullptr, &b);
  return true;
}

}  // namespace v0_1
}  // namespace vpcat
