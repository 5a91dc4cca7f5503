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

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
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

namespace detail {

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
inline bool hostlist_fail(HostlistError* err, std::size_t column, const char* format, ...) noexcept {
  if (err == nullptr) return false;
  err->column = column;
  std::va_list args;
  va_start(args, format);
  std::vsnprintf(err->what, sizeof err->what, format, args);
  va_end(args);
  if (column > 0) {
    const std::size_t n = std::char_traits<char>::length(err->what);
    std::snprintf(err->what + n, sizeof err->what - n, " at column %llu", static_cast<unsigned long long>(column));
  }
  return false;
}

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b, std::uint64_t cap) noexcept {
  return a >= cap || b >= cap - a ? cap : a + b;
}
inline std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b, std::uint64_t cap) noexcept {
  if (a == 0 || b == 0) return 0;
  return a >= cap || b >= cap || a > cap / b ? cap : a * b;
}

// Walks `s`, checking the grammar and counting names (saturated at `cap`);
// calls v.literal(text), v.range(first_text, first, last) and v.item_end()
// in order when `v` is not null. The visitor runs only on a valid prefix.
template <class Visitor>
bool walk_hostlist(std::string_view s, std::uint64_t cap, std::uint64_t* total, HostlistError* err,
                   Visitor* v) noexcept(noexcept(std::declval<Visitor&>().item_end())) {
  std::size_t at = 0;
  auto number = [&](std::string_view& text, std::uint64_t& value, std::size_t open) {
    const std::size_t start = at;
    value = 0;
    for (; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at) {
      const auto d = static_cast<std::uint64_t>(s[at] - '0');
      if (value > (~std::uint64_t{0} - d) / 10u) {
        while (at < s.size() && s[at] >= '0' && s[at] <= '9') ++at;
        return hostlist_fail(err, 0, "number %.*s is 2^64 or more", static_cast<int>(at - start), s.data() + start);
      }
      value = value * 10u + d;
    }
    if (at == start) {
      if (at == s.size()) return hostlist_fail(err, open + 1, "unclosed '['");
      return hostlist_fail(err, at + 1, "expected a number, got '%c'", s[at]);
    }
    text = s.substr(start, at - start);
    return true;
  };
  *total = 0;
  while (true) {
    std::uint64_t item = 1;
    const std::size_t start = at;
    while (at < s.size() && s[at] != ',') {
      if (s[at] == '[') {
        const std::size_t open = at++;
        std::uint64_t group = 0;
        while (true) {
          std::string_view first_text, last_text;
          std::uint64_t first = 0, last = 0;
          if (!number(first_text, first, open)) return false;
          last = first;
          last_text = first_text;
          if (at < s.size() && s[at] == '-') {
            ++at;
            if (!number(last_text, last, open)) return false;
          }
          if (first > last)
            return hostlist_fail(err, 0, "decreasing range %.*s-%.*s", static_cast<int>(first_text.size()),
                                 first_text.data(), static_cast<int>(last_text.size()), last_text.data());
          group = saturating_add(group, last - first == ~std::uint64_t{0} ? cap : last - first + 1, cap);
          if (v != nullptr) v->range(first_text, first, last);
          if (at < s.size() && s[at] == ',') {
            ++at;
            continue;
          }
          break;
        }
        if (at == s.size()) return hostlist_fail(err, open + 1, "unclosed '['");
        if (s[at] != ']') return hostlist_fail(err, at + 1, "unexpected '%c' in a range", s[at]);
        ++at;
        item = saturating_mul(item, group, cap);
        if (v != nullptr) v->group_end();
      } else if (is_host_char(s[at])) {
        const std::size_t lit = at;
        while (at < s.size() && is_host_char(s[at])) ++at;
        if (v != nullptr) v->literal(s.substr(lit, at - lit));
      } else {
        return hostlist_fail(err, at + 1, "unexpected '%c'", s[at]);
      }
    }
    if (at == start) return hostlist_fail(err, at + 1, "empty host name");
    *total = saturating_add(*total, item, cap);
    if (v != nullptr) v->item_end();
    if (at == s.size()) return true;
    ++at;  // ','
  }
}

struct NoHostlistVisitor {
  void literal(std::string_view) noexcept {}
  void range(std::string_view, std::uint64_t, std::uint64_t) noexcept {}
  void group_end() noexcept {}
  void item_end() noexcept {}
};

// Builds the names of a host list already checked by walk_hostlist.
class HostlistBuilder {
 public:
  explicit HostlistBuilder(std::vector<std::string>* out) : out_(out) {}
  void literal(std::string_view text) {
    for (std::string& n : names_) n.append(text);
  }
  void range(std::string_view first_text, std::uint64_t first, std::uint64_t last) {
    for (std::uint64_t x = first;; ++x) {
      std::string digits = std::to_string(x);
      if (digits.size() < first_text.size()) digits.insert(0, first_text.size() - digits.size(), '0');
      choices_.push_back(std::move(digits));
      if (x == last) break;
    }
  }
  void group_end() {
    std::vector<std::string> next;
    next.reserve(names_.size() * choices_.size());
    for (const std::string& n : names_)
      for (const std::string& c : choices_) next.push_back(n + c);
    names_ = std::move(next);
    choices_.clear();
  }
  void item_end() {
    for (std::string& n : names_) out_->push_back(std::move(n));
    names_.assign(1, std::string());
  }

 private:
  std::vector<std::string>* out_;
  std::vector<std::string> names_{std::string()};
  std::vector<std::string> choices_;
};

}  // namespace detail

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
