#include "vp/base/errors.hpp"

#include <cstdint>
#include <utility>

#include "vpcat/utf8.hpp"

namespace vp {

namespace {

std::string escaped(const std::string& s, bool keep_lines) {
  static const char* const kHex = "0123456789abcdef";
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  std::string out;
  auto escape = [&](std::uint8_t b) { out += "\\x", out += kHex[b >> 4], out += kHex[b & 15]; };
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t bad = i + vpcat::utf8_invalid_at(p + i, s.size() - i);
    for (; i < bad; ++i) {  // valid UTF-8: only its ASCII controls need escaping
      const std::uint8_t c = p[i];
      if ((c < 0x20 && !(keep_lines && (c == '\n' || c == '\t'))) || c == 0x7f) escape(c);
      else out += static_cast<char>(c);
    }
    if (i < s.size()) escape(p[i++]);
  }
  return out;
}

}  // namespace

std::string printable(const std::string& s) { return escaped(s, true); }
std::string printable_line(const std::string& s) { return escaped(s, false); }

namespace {
std::string message(const std::string& file, int line, int column, const std::string& reason,
                    const std::string& excerpt) {
  std::string m = source_place(file, line, column) + ": " + printable(reason);
  if (!excerpt.empty()) m += "\n" + printable(excerpt);
  return m;
}
}  // namespace

std::string source_place(const std::string& file, int line, int column) {
  std::string where = file.empty() ? std::string("<input>") : printable_line(file);
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
