#include "vp/base/xml.hpp"

#include <cstdint>

#include "vpcat/utf8.hpp"

namespace vp {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// XML 1.0's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
// [#x10000-#x10FFFF] (surrogates are not valid UTF-8 in the first place).
bool xml_char(char32_t c) { return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c != 0xFFFE && c != 0xFFFF); }

}  // namespace

std::string escape_xml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  for (std::size_t i = 0; i < s.size();) {
    char32_t c = 0;
    const std::size_t n = vpcat::utf8_sequence(p + i, s.size() - i, &c);
    if (n == 0 || !xml_char(c)) {
      out += kReplacement;
      i += n == 0 ? 1 : n;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.append(s.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace vp
