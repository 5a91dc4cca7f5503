#include "vp/topology/errors.hpp"

#include <algorithm>
#include <utility>

namespace vp {

namespace {
// `s` with every byte that is not part of valid UTF-8, and every control
// character but LF and TAB, written as \xNN: a message echoes input bytes, and must
// stay text on a terminal and in JSON.
std::string printable(const std::string& s) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  auto escape = [&](unsigned char b) { out += "\\x", out += kHex[b >> 4], out += kHex[b & 15]; };
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) escape(c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    bool ok = len > 0 && s.size() - i >= len;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xbf);
    }
    if (!ok) {
      escape(c);
      ++i;
      continue;
    }
    out.append(s, i, len);
    i += len;
  }
  return out;
}

std::string where_what(const std::string& file, int line, const std::string& reason) {
  std::string where = file.empty() ? std::string("<input>") : printable(file);
  if (line > 0) where += ":" + std::to_string(line);
  return where + ": " + printable(reason);
}
}  // namespace

InputError::InputError(std::string file, int line, std::string reason)
    : std::runtime_error(where_what(file, line, reason)),
      file_(std::move(file)),
      line_(line),
      reason_(std::move(reason)) {}

InputError json_number_overflow(const std::string& file, std::string_view content, std::string_view what) {
  std::size_t close = what.rfind('\''), open = close == std::string_view::npos ? close : what.rfind('\'', close - 1);
  std::string_view token = open == std::string_view::npos ? std::string_view() : what.substr(open + 1, close - open - 1);
  int line = 0;
  if (!token.empty()) {
    std::size_t at = content.find(token);
    if (at != std::string_view::npos)
      line = 1 + static_cast<int>(std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  }
  std::string number(token.substr(0, 40));
  if (token.size() > 40) number += "...";
  return InputError(file, line, "number " + number + " is out of range (beyond a double)");
}

}  // namespace vp
