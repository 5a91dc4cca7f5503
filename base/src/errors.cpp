#include "vp/base/errors.hpp"

#include <utility>

namespace vp {

namespace {
// `s` with every byte that is not part of valid UTF-8, and every control
// character but LF and TAB, written as \xNN: a message echoes input bytes,
// and must stay text on a terminal and in JSON.
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

std::string message(const std::string& file, int line, int column, const std::string& reason,
                    const std::string& excerpt) {
  std::string m = source_place(file, line, column) + ": " + printable(reason);
  if (!excerpt.empty()) m += "\n" + printable(excerpt);
  return m;
}
}  // namespace

std::string source_place(const std::string& file, int line, int column) {
  std::string where = file.empty() ? std::string("<input>") : printable(file);
  if (line > 0) {
    where += ":" + std::to_string(line);
    if (column > 0) where += ":" + std::to_string(column);
  }
  return where;
}

InputError::InputError(std::string file, int line, std::string reason)
    : InputError(std::move(file), line, 0, std::move(reason), "") {}

InputError::InputError(std::string file, int line, int column, std::string reason, std::string excerpt)
    : ToolError(message(file, line, column, reason, excerpt)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      reason_(std::move(reason)),
      excerpt_(std::move(excerpt)) {}

}  // namespace vp
