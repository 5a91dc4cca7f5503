#include "vp/catalog/names.hpp"

#include <charconv>

namespace vp::catalog {

std::string role_text(std::int32_t role) {
  if (role == kIdle) return "idle";
  if (role >= 0 && role < kNicBase) return "gpu" + std::to_string(role);
  if (role >= kNicBase) return "nic" + std::to_string(role - kNicBase);
  return "role " + std::to_string(role);
}

std::string cycles_text(const std::vector<std::uint32_t>& images) {
  std::string out;
  std::vector<bool> done(images.size(), false);
  for (std::size_t start = 0; start < images.size(); ++start) {
    if (done[start] || images[start] == start) continue;
    out += '(';
    for (std::size_t c = start; c < images.size() && !done[c]; c = images[c]) {
      if (c != start) out += ' ';
      out += std::to_string(c);
      done[c] = true;
    }
    out += ')';
  }
  return out.empty() ? "()" : out;
}

std::optional<std::vector<std::uint32_t>> parse_cycles(std::string_view text, std::size_t n) {
  std::vector<std::uint32_t> images(n);
  for (std::size_t i = 0; i < n; ++i) images[i] = static_cast<std::uint32_t>(i);
  if (text == "()") return images;
  std::vector<bool> used(n, false);
  std::size_t pos = 0;
  if (text.empty()) return std::nullopt;
  while (pos < text.size()) {
    if (text[pos++] != '(') return std::nullopt;
    std::vector<std::uint32_t> cycle;
    for (;;) {
      std::uint32_t v = 0;
      auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), v);
      if (ec != std::errc() || end == text.data() + pos || v >= n || used[v]) return std::nullopt;
      used[v] = true;
      cycle.push_back(v);
      pos = static_cast<std::size_t>(end - text.data());
      if (pos < text.size() && text[pos] == ' ') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ')') {
        ++pos;
        break;
      }
      return std::nullopt;
    }
    if (cycle.size() < 2) return std::nullopt;
    for (std::size_t k = 0; k < cycle.size(); ++k) images[cycle[k]] = cycle[(k + 1) % cycle.size()];
  }
  return images;
}

}  // namespace vp::catalog
