#include "vp/catalog/names.hpp"

#include <array>
#include <charconv>

namespace vp::catalog {

namespace {

constexpr std::array<std::string_view, 6> kKinds = {"cpu", "host_bridge", "pcie_switch", "gpu", "nic", "net_switch"};
constexpr std::array<std::string_view, 3> kLinkKinds = {"pcie", "inter_socket", "network"};
constexpr std::array<std::string_view, 4> kFabricKinds = {"none", "single_switch", "rail", "leaf_spine"};

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, Enum e) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : std::string_view("unknown");
}

template <typename Enum, std::size_t N>
std::optional<Enum> parse(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Kind k) { return name_of(kKinds, k); }
std::string_view to_string(LinkKind k) { return name_of(kLinkKinds, k); }
std::string_view to_string(FabricKind k) { return name_of(kFabricKinds, k); }
std::optional<Kind> parse_kind(std::string_view s) { return parse<Kind>(kKinds, s); }
std::optional<LinkKind> parse_link_kind(std::string_view s) { return parse<LinkKind>(kLinkKinds, s); }
std::optional<FabricKind> parse_fabric_kind(std::string_view s) { return parse<FabricKind>(kFabricKinds, s); }

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
