// The walk over a host list behind vpcat/hostlist.hpp's count_hostlist()
// and expand_hostlist() (internal: include vpcat/hostlist.hpp, which
// includes this after the types it fills, HostlistError and is_host_char).
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vpcat {
inline namespace v0_1 {

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

}  // namespace v0_1
}  // namespace vpcat
