// PCI bus ids ("0000:17:00.0"): the one parser of the project. The importers,
// the verifier, the C API's vpcat_catalog_gpu_by_bus_id, vp-plan's
// `--gpus NODE:BUS-ID` and the measured-capacity reader all read them here.
//
// Two forms:
// * PciBusIdForm::exact, the Linux form DOMAIN:BB:DD.F that lspci, hwloc,
//   NCCL and nvidia-smi write and catalogs store: a domain of 4 to 8 hex
//   digits (nvidia-smi writes 8), a 2-digit bus and device, a 1-digit
//   function;
// * PciBusIdForm::loose, what a person or a tool may type when naming a GPU:
//   [DOMAIN:]BUS:DEVICE[.FUNCTION] with 1 to 8, 1 to 2, 1 to 2 and 1 digit;
//   a missing domain or function is 0 ("17:0.0" and nvbandwidth's
//   "0000:17:00" both name 0000:17:00.0).
// Both take either case and check what a PCI address can hold: a device of at
// most 0x1f and a function of at most 7 (5 and 3 bits of the devfn byte; ARI
// functions are written the same way).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

struct PciBusId {
  std::uint32_t domain = 0;
  std::uint8_t bus = 0;
  std::uint8_t device = 0;    // 0..0x1f
  std::uint8_t function = 0;  // 0..7

  friend bool operator==(const PciBusId& a, const PciBusId& b) noexcept {
    return a.domain == b.domain && a.bus == b.bus && a.device == b.device && a.function == b.function;
  }
  friend bool operator!=(const PciBusId& a, const PciBusId& b) noexcept { return !(a == b); }
};

enum class PciBusIdForm : std::uint8_t { exact, loose };

namespace detail {

inline int pci_hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A field of min..max hex digits from s[at..), ending at `end` or at the end
// of s when `end` is '\0'; `at` moves past the terminator.
inline bool pci_field(std::string_view s, std::size_t& at, std::size_t min, std::size_t max, char end,
                      std::uint32_t& out) noexcept {
  std::uint32_t v = 0;
  std::size_t digits = 0;
  while (at < s.size() && pci_hex_digit(s[at]) >= 0) {
    if (++digits > max) return false;
    v = v * 16u + static_cast<std::uint32_t>(pci_hex_digit(s[at++]));
  }
  if (digits < min) return false;
  if (end == '\0') {
    if (at != s.size()) return false;
  } else {
    if (at >= s.size() || s[at] != end) return false;
    ++at;
  }
  out = v;
  return true;
}

}  // namespace detail

// Parses `s` in `form` into `out`. Returns false, leaving `out` alone, when
// `s` is not a bus id of that form.
inline bool parse_pci_bus_id(std::string_view s, PciBusId& out, PciBusIdForm form = PciBusIdForm::exact) noexcept {
  std::uint32_t domain = 0, bus = 0, device = 0, function = 0;
  std::size_t at = 0;
  if (form == PciBusIdForm::exact) {
    if (!detail::pci_field(s, at, 4, 8, ':', domain) || !detail::pci_field(s, at, 2, 2, ':', bus) ||
        !detail::pci_field(s, at, 2, 2, '.', device) || !detail::pci_field(s, at, 1, 1, '\0', function))
      return false;
  } else {
    std::size_t colons = 0;
    for (char c : s) colons += c == ':';
    if (colons < 1 || colons > 2) return false;
    const bool has_function = s.find('.') != std::string_view::npos;
    if (colons == 2 && !detail::pci_field(s, at, 1, 8, ':', domain)) return false;
    if (!detail::pci_field(s, at, 1, 2, ':', bus) || !detail::pci_field(s, at, 1, 2, has_function ? '.' : '\0', device))
      return false;
    if (has_function && !detail::pci_field(s, at, 1, 1, '\0', function)) return false;
  }
  if (device > 0x1f || function > 7) return false;
  out.domain = domain;
  out.bus = static_cast<std::uint8_t>(bus);
  out.device = static_cast<std::uint8_t>(device);
  out.function = static_cast<std::uint8_t>(function);
  return true;
}

// True when `s` is a bus id as catalogs store it (SPEC.md §6.3): the exact
// form in lower case.
inline bool is_canonical_pci_bus_id(std::string_view s) noexcept {
  for (char c : s)
    if (c >= 'A' && c <= 'F') return false;
  PciBusId id;
  return parse_pci_bus_id(s, id, PciBusIdForm::exact);
}

// Room for the longest canonical bus id and its NUL ("ffffffff:ff:1f.7").
inline constexpr std::size_t kPciBusIdBufferSize = 17;

// Writes `id` in the canonical form (a 4-digit domain, 8 digits when it needs
// more) and a NUL to `out`; returns the length written, without the NUL.
inline std::size_t format_pci_bus_id(const PciBusId& id, char (&out)[kPciBusIdBufferSize]) noexcept {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t n = 0;
  const int domain_digits = id.domain > 0xffffu ? 8 : 4;
  for (int k = domain_digits - 1; k >= 0; --k) out[n++] = kHex[(id.domain >> (4 * k)) & 0xfu];
  out[n++] = ':';
  out[n++] = kHex[id.bus >> 4];
  out[n++] = kHex[id.bus & 0xfu];
  out[n++] = ':';
  out[n++] = kHex[(id.device >> 4) & 0xfu];
  out[n++] = kHex[id.device & 0xfu];
  out[n++] = '.';
  out[n++] = kHex[id.function & 0xfu];
  out[n] = '\0';
  return n;
}

// Whether `a` and `b` name the same function: compared as numbers when both
// parse in the loose form ("00000000:17:00.0" as NVML prints it is
// "0000:17:00.0"), else as text.
inline bool same_pci_bus_id(std::string_view a, std::string_view b) noexcept {
  PciBusId x, y;
  if (parse_pci_bus_id(a, x, PciBusIdForm::loose) && parse_pci_bus_id(b, y, PciBusIdForm::loose)) return x == y;
  return a == b;
}

}  // namespace v0_1
}  // namespace vpcat
