// PCI addresses as the importers read them, one rule for every format: the
// Linux form DDDD:BB:DD.F with a domain of 4 to 8 hex digits (nvidia-smi
// writes 8), a 2-digit bus, a device 00-1f and a function 0-7 (5 and 3 bits
// of the devfn byte; ARI functions are shown the same way). Private to the
// importers.
#pragma once

#include <string_view>

namespace vp::pci {

inline bool is_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

inline unsigned hex_value(char c) {
  return c <= '9' ? static_cast<unsigned>(c - '0') : static_cast<unsigned>((c | 0x20) - 'a' + 10);
}

inline bool valid_device_function(unsigned device, unsigned function) { return device <= 0x1f && function <= 7; }

// "0000:17:00.0" or "00000000:17:00.0", either case.
inline bool is_address(std::string_view s) {
  std::size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon < 4 || colon > 8 || s.size() != colon + 8) return false;
  if (s[colon + 3] != ':' || s[colon + 6] != '.') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == colon || i == colon + 3 || i == colon + 6) continue;
    if (!is_hex_digit(s[i])) return false;
  }
  unsigned device = hex_value(s[colon + 4]) * 16 + hex_value(s[colon + 5]);
  unsigned function = hex_value(s[colon + 7]);
  return valid_device_function(device, function);
}

}  // namespace vp::pci
