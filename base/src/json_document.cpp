#include "vp/base/json_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <utility>

#include "vp/base/input_file.hpp"

namespace vp::json {

namespace {

// ---- scanning valid JSON text (nlohmann parsed it first) ------------------

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view s, std::size_t pos) {
  while (pos < s.size() && is_space(s[pos])) ++pos;
  return pos;
}

// `pos` at an opening quote; returns the position after the closing one.
std::size_t skip_string(std::string_view s, std::size_t pos) {
  for (++pos; pos < s.size(); ++pos) {
    if (s[pos] == '\\')
      ++pos;
    else if (s[pos] == '"')
      return pos + 1;
  }
  return s.size();
}

// `pos` at the start of a value; returns the position after it (iterative,
// so deep nesting cannot exhaust the stack).
std::size_t skip_value(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return pos;
  if (s[pos] == '"') return skip_string(s, pos);
  if (s[pos] != '{' && s[pos] != '[') {
    while (pos < s.size() && !is_space(s[pos]) && s[pos] != ',' && s[pos] != '}' && s[pos] != ']') ++pos;
    return pos;
  }
  int depth = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == '"') {
      pos = skip_string(s, pos);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return pos + 1;
    ++pos;
  }
  return pos;
}

// Start of the member `seg` of the container starting at `pos`, or npos.
std::size_t find_member(std::string_view s, std::size_t pos, const Segment& seg) {
  const auto* key = std::get_if<std::string>(&seg);
  if (pos >= s.size() || s[pos] != (key ? '{' : '[')) return std::string_view::npos;
  pos = skip_space(s, pos + 1);
  for (std::size_t index = 0; pos < s.size() && s[pos] != '}' && s[pos] != ']'; ++index) {
    bool match = false;
    if (key) {
      const std::size_t end = skip_string(s, pos);
      match = end >= pos + 2 && s.substr(pos + 1, end - pos - 2) == *key;
      pos = skip_space(s, skip_space(s, end) + 1);  // past ':'
    } else {
      match = index == std::get<std::size_t>(seg);
    }
    if (match) return pos;
    pos = skip_space(s, skip_value(s, pos));
    if (pos < s.size() && s[pos] == ',') pos = skip_space(s, pos + 1);
  }
  return std::string_view::npos;
}

// The first key given twice in one object: its offset and its text, or npos.
std::size_t find_duplicate_key(std::string_view s, std::string& key) {
  struct Frame {
    bool object;
    std::set<std::string_view> keys;
  };
  std::vector<Frame> stack;
  bool expect_key = false;
  for (std::size_t pos = 0; pos < s.size();) {
    const char c = s[pos];
    if (c == '"') {
      const std::size_t end = skip_string(s, pos);
      if (expect_key && !stack.empty() && stack.back().object) {
        const std::string_view k = s.substr(pos + 1, end - pos - 2);
        if (!stack.back().keys.insert(k).second) {
          key = std::string(k);
          return pos;
        }
      }
      expect_key = false;
      pos = end;
      continue;
    }
    if (c == '{' || c == '[') {
      stack.push_back({c == '{', {}});
      expect_key = c == '{';
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
      expect_key = false;
    } else if (c == ',') {
      expect_key = !stack.empty() && stack.back().object;
    }
    ++pos;
  }
  return std::string_view::npos;
}

// ---- the size of the tree before it is built -------------------------------

// What nlohmann::ordered_json allocates, at most, for each token (glibc, 64
// bits; measured: a number 16 bytes, an empty array or object 49, an empty
// string 65, an object member 79 with its value, a level of [[[...]]] 64):
// a value's 16-byte slot doubled for the growth of the vector holding it; an
// array's or object's vector, a string's std::string, with their heap
// chunks; an object key's std::string inside its member, doubled likewise;
// text longer than the short-string buffer (15 bytes) on the heap.
constexpr std::uint64_t kValueCost = 32;
constexpr std::uint64_t kContainerCost = 48;
constexpr std::uint64_t kStringCost = 48;
constexpr std::uint64_t kKeyCost = 64;
constexpr std::size_t kShortString = 15;

// Shapes no input of ours has, refused by the scan before parsing: nlohmann's
// ordered_json finds each new key of an object by a walk over the keys before
// it, so an object of many keys parses in quadratic time (100,000 keys: 21 s,
// 7 million: unbounded); the largest object of any of our formats has 23. The
// depth bound keeps the scan's own counters in a fixed array (our formats nest
// at most 6 deep).
constexpr int kMaxDepth = 512;
constexpr std::uint32_t kMaxObjectKeys = 4096;

struct TreeScan {
  std::uint64_t cost = 0;                    // the estimated tree
  std::size_t over = std::string_view::npos;  // offset of the token refused, if any
  std::string why;                           // why it was refused
};

// The estimated tree of `s`, up to the first token by which it exceeds
// `budget` or breaks the shape limits above (the scan stops there). A scan of
// bytes that allocates nothing, so it runs on text nlohmann has not checked
// yet (a malformed file is merely estimated).
TreeScan tree_estimate(std::string_view s, std::uint64_t budget) {
  TreeScan scan;
  std::array<std::uint32_t, kMaxDepth> keys{};  // per open container: its keys so far
  std::array<bool, kMaxDepth> object{};
  int depth = 0;
  auto refuse = [&](std::size_t at, std::string why) {
    scan.over = at;
    scan.why = std::move(why);
  };
  for (std::size_t pos = 0; pos < s.size() && scan.over == std::string_view::npos;) {
    const std::size_t start = pos;
    const char c = s[pos];
    if (c == '"') {
      pos = skip_string(s, pos);
      const std::size_t length = pos - start;  // with the quotes: escapes make the text longer, never shorter
      const std::size_t after = skip_space(s, pos);
      const bool key = after < s.size() && s[after] == ':';
      scan.cost += key ? kKeyCost : kValueCost + kStringCost;
      if (length > kShortString) scan.cost += length + 16;
      if (key && depth > 0 && object[depth - 1] && ++keys[depth - 1] > kMaxObjectKeys)
        refuse(start, fmt::format("an object of more than {} keys (no input of ours has one; parsing it would take "
                                  "quadratic time)", kMaxObjectKeys));
    } else if (c == '{' || c == '[') {
      scan.cost += kValueCost + kContainerCost;
      if (depth == kMaxDepth) {
        refuse(start, fmt::format("nested more than {} deep (no input of ours is)", kMaxDepth));
      } else {
        object[depth] = c == '{';
        keys[depth] = 0;
        ++depth;
      }
      ++pos;
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;
      ++pos;
      continue;
    } else if (is_space(c) || c == ',' || c == ':') {
      ++pos;
      continue;
    } else {
      scan.cost += kValueCost;  // a number, true, false, null (or a stray word)
      pos = std::max(skip_value(s, pos), pos + 1);
    }
    if (scan.over == std::string_view::npos && scan.cost > budget)
      refuse(start, fmt::format("too large to parse (by this value its tree would take more than the limit of {} for "
                                "a JSON input; --max-json-memory raises it)",
                                bytes_text(budget)));
  }
  return scan;
}

// nlohmann frees a tree from a destructor that allocates a stack of its
// own: an allocation failure there ends the process (std::terminate), so a
// parse that ran out of memory half-way would crash while unwinding. The
// memory the tree may take, and half again for that stack, is therefore
// asked for once before parsing (mapped, not touched: no cost) and the input
// refused when the machine or the ulimit has not that much.
void ensure_memory_for(const std::string& path, std::uint64_t estimate) {
  const std::uint64_t want = estimate + estimate / 2;
  void* p = want > PTRDIFF_MAX ? nullptr : std::malloc(static_cast<std::size_t>(want));
  if (p == nullptr) throw_out_of_memory(path);
  std::free(p);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse
// error at line 1, column 2: " prefix (the place is reported as ours).
std::string parse_error_detail(const nlohmann::json::parse_error& e) {
  const std::string_view what = e.what();
  const std::size_t start = what.find("parse error");
  const std::size_t colon = start == std::string_view::npos ? start : what.find(": ", start);
  return std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
}

}  // namespace

std::string format_path(const Path& path) {
  if (path.empty()) return "document";
  std::string out;
  for (const Segment& seg : path) {
    if (const auto* key = std::get_if<std::string>(&seg)) {
      if (!out.empty()) out += '.';
      out += *key;
    } else {
      out += fmt::format("[{}]", std::get<std::size_t>(seg));
    }
  }
  return out;
}

Path parse_path(std::string_view text) {
  Path out;
  if (text == "document") return out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '.') {
      ++pos;
    } else if (text[pos] == '[') {
      const std::size_t close = text.find(']', pos);
      std::size_t index = 0;
      bool digits = close != std::string_view::npos && close > pos + 1;
      for (std::size_t i = pos + 1; digits && i < close; ++i) {
        if (text[i] < '0' || text[i] > '9' || index > (~std::size_t{0} - 9) / 10) digits = false;
        else index = index * 10 + static_cast<std::size_t>(text[i] - '0');
      }
      if (!digits) return out;  // not a path we wrote: point at what we have
      out.emplace_back(index);
      pos = close + 1;
    } else {
      const std::size_t end = std::min(text.find('.', pos), text.find('[', pos));
      out.emplace_back(std::string(text.substr(pos, end - pos)));
      pos = end == std::string_view::npos ? text.size() : end;
    }
  }
  return out;
}

void line_column(std::string_view text, std::size_t offset, int& line, int& column) {
  offset = std::min(offset, text.size());
  const auto begin = text.begin();
  line = 1 + static_cast<int>(std::count(begin, begin + static_cast<std::ptrdiff_t>(offset), '\n'));
  const std::size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t line_start = nl == std::string_view::npos ? 0 : nl + 1;
  column = 1 + static_cast<int>(offset - line_start);
}

std::string excerpt(std::string_view text, std::size_t offset) {
  constexpr std::size_t kWidth = 100;  // longer lines are cut around the caret
  offset = std::min(offset, text.size());
  const std::size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t line_start = nl == std::string_view::npos ? 0 : nl + 1;
  std::size_t line_end = text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = text.size();
  if (line_end > line_start && text[line_end - 1] == '\r') --line_end;
  std::size_t start = line_start, end = line_end;
  if (end - start > kWidth) {
    start = offset - line_start > kWidth / 2 ? offset - kWidth / 2 : line_start;
    end = std::min(line_end, start + kWidth);
  }
  while (start > line_start && start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
    --start;  // not inside a UTF-8 sequence
  std::string shown = start > line_start ? "..." : "";
  std::string caret = start > line_start ? "   " : "";
  for (std::size_t i = start; i < end; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    shown += c < 0x20 && c != '\t' ? '?' : static_cast<char>(c);
    if (i < offset && (c & 0xC0) != 0x80) caret += c == '\t' ? '\t' : ' ';
  }
  if (end < line_end) shown += "...";
  return shown + "\n" + caret + "^";
}

Document::Document(std::string path, std::string text, ParseOptions options)
    : path_(std::move(path)), text_(std::move(text)) {
  if (skip_space(text_, 0) == text_.size()) throw InputError(path_, 1, 1, "malformed JSON (the file is empty)", "");
  const std::uint64_t budget = input_limits().max_json_memory;
  const TreeScan scan = tree_estimate(text_, budget);
  if (scan.over != std::string_view::npos) throw error_at_offset(scan.over, scan.why);
  ensure_memory_for(path_, scan.cost);
  reading_input(path_, [&] { parse(options); });
}

void Document::parse(ParseOptions options) {
  try {
    root_ = Json::parse(text_);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t offset = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text_.size());
    // At the end of the input: point just after the last character.
    if (offset >= text_.size())
      while (offset > 0 && is_space(text_[offset - 1])) --offset;
    throw error_at_offset(offset, "malformed JSON (" + parse_error_detail(e) + ")");
  } catch (const nlohmann::json::out_of_range& e) {
    // 406: a number beyond a double (1e999); what() ends "parsing '1e999'".
    const std::string_view what(e.what());
    const std::size_t close = what.rfind('\'');
    const std::size_t open = close == std::string_view::npos || close == 0 ? std::string_view::npos : what.rfind('\'', close - 1);
    const std::string_view token = open == std::string_view::npos ? std::string_view() : what.substr(open + 1, close - open - 1);
    const std::size_t at = token.empty() ? std::string_view::npos : text_.find(token);
    std::string number(token.substr(0, 40));
    if (token.size() > 40) number += "...";
    throw error_at_offset(at == std::string_view::npos ? 0 : at,
                          "number " + number + " is out of range (beyond a double)");
  }
  if (options.reject_duplicate_keys) {
    std::string key;
    const std::size_t at = find_duplicate_key(text_, key);
    if (at != std::string_view::npos) throw error_at_offset(at, fmt::format("\"{}\" is given twice", key));
  }
}

Document Document::read_file(const std::string& path, ParseOptions options) {
  std::string text = read_input_file(path);
  return Document(input_name(path), std::move(text), options);
}

std::size_t Document::offset_of(const Path& where) const {
  std::size_t pos = skip_space(text_, 0);
  for (const Segment& seg : where) {
    const std::size_t member = find_member(text_, pos, seg);
    if (member == std::string_view::npos) break;
    pos = member;
  }
  return pos;
}

std::string_view Document::source_of(const Path& where) const {
  const std::size_t start = offset_of(where);
  return std::string_view(text_).substr(start, skip_value(text_, start) - start);
}

InputError Document::error_at(const Path& where, const std::string& reason) const {
  return error_at_offset(offset_of(where), reason);
}

InputError Document::error_at_offset(std::size_t offset, const std::string& reason) const {
  int line = 0, column = 0;
  line_column(text_, offset, line, column);
  return InputError(path_, line, column, reason, excerpt(text_, offset));
}

}  // namespace vp::json
