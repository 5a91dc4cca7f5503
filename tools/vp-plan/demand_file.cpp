#include "demand_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "vp/topology/errors.hpp"

namespace vp::plan_cli {

namespace {

constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 63;

// A small JSON reader that knows the line of every value. It reads exactly
// the shapes a demand file has (objects, arrays, numbers, and strings as
// keys) and names anything else.
class Reader {
 public:
  Reader(const std::string& path, const std::string& text) : path_(path), s_(text) {}

  [[noreturn]] void fail(int line, const std::string& what) const { throw InputError(path_, line, what); }
  [[noreturn]] void syntax(const std::string& why) const { fail(line_, "malformed JSON (" + why + ")"); }

  // Line of the next token (after white space).
  int line() {
    skip_space();
    return line_;
  }
  void skip_space() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') ++line_;
      else if (c != ' ' && c != '\t' && c != '\r') return;
      ++pos_;
    }
  }
  bool at_end() {
    skip_space();
    return pos_ == s_.size();
  }
  char peek() {
    skip_space();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  std::string shown() {
    skip_space();
    if (pos_ == s_.size()) return "the end of the file";
    const char c = s_[pos_];
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
    return fmt::format("'{}'", c);
  }
  void expect(char c, const char* context) {
    if (peek() != c) syntax(fmt::format("expected '{}' {}, got {}", c, context, shown()));
    ++pos_;
  }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  std::string key() {
    if (peek() != '"') syntax(fmt::format("expected a key string, got {}", shown()));
    ++pos_;
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' || s_[pos_] == '\n') syntax("keys may not hold escapes or line breaks");
      out += s_[pos_++];
    }
    if (pos_ == s_.size()) syntax("unterminated string");
    ++pos_;
    return out;
  }

  struct Number {
    bool negative = false, integer = true, too_big = false;
    std::uint64_t u = 0;  // when integer and !negative and !too_big
    double d = 0;
    std::string text;
  };
  // A JSON number (RFC 8259 grammar), exact for integers.
  Number number() {
    skip_space();
    Number n;
    const std::size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') n.negative = true, ++pos_;
    const std::size_t digits = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const auto v = static_cast<std::uint64_t>(s_[pos_] - '0');
      if (n.u > (~std::uint64_t{0} - v) / 10) n.too_big = true;
      else n.u = n.u * 10 + v;
      ++pos_;
    }
    if (pos_ == digits) syntax(fmt::format("expected a number, got {}", start == pos_ ? shown() : "'-'"));
    if (s_[digits] == '0' && pos_ - digits > 1) syntax("numbers may not have leading zeros");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      n.integer = false;
      ++pos_;
      const std::size_t f = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      if (pos_ == f) syntax("expected digits after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      n.integer = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      const std::size_t e = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      if (pos_ == e) syntax("expected digits in the exponent");
    }
    n.text = s_.substr(start, pos_ - start);
    n.d = std::strtod(n.text.c_str(), nullptr);
    return n;
  }

  // Skip any value whose type is not a number (for messages): its kind.
  std::string value_kind() {
    const char c = peek();
    if (c == '"') return "a string";
    if (c == '{') return "an object";
    if (c == '[') return "an array";
    if (c == 't' || c == 'f') return "a boolean";
    if (c == 'n') return "null";
    return shown();
  }

 private:
  const std::string& path_;
  const std::string& s_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

// A whole number of bytes from 0 to 2^63, or an explanation.
bool byte_count(const Reader::Number& n, std::uint64_t& out, std::string& why) {
  const std::string rule = "must be a whole number from 0 to 2^63";
  if (n.negative && !(n.d == 0)) return why = fmt::format("{}: {}", n.text, rule), false;
  if (n.integer) {
    if (n.too_big || n.u > kMaxBytes) return why = fmt::format("{}: {}", n.text, rule), false;
    out = n.negative ? 0 : n.u;
    return true;
  }
  if (!(n.d >= 0) || n.d != std::floor(n.d) || n.d > 9.2233720368547758e18)
    return why = fmt::format("{}: {}", n.text, rule), false;
  out = static_cast<std::uint64_t>(n.d);
  return true;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, 0, fmt::format("cannot read the file ({})", std::strerror(errno)));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

vpcat::Demand DemandFile::view() const {
  if (dense) return vpcat::Demand::dense(bytes.data(), gpus);
  return vpcat::Demand::sparse(entries.data(), entries.size(), gpus);
}

int DemandFile::line_of(std::uint64_t src, std::uint64_t dst) const {
  if (dense) {
    const std::uint64_t k = src * gpus + dst;
    return k < lines.size() ? lines[k] : gpus_line;
  }
  for (std::size_t k = 0; k < entries.size(); ++k)
    if (entries[k].src == src && entries[k].dst == dst) return lines[k];
  return gpus_line;
}

DemandFile parse_demand(const std::string& path, const std::string& text) {
  Reader r(path, text);
  DemandFile out;
  out.path = path;
  if (r.at_end()) r.fail(1, "malformed JSON (the file is empty)");
  r.expect('{', "at the start of the demand");
  bool have_gpus = false, have_bytes = false, have_entries = false;
  int body_line = 0;
  // Rows and entries are read before "gpus" may be known: keep them raw.
  std::vector<std::vector<std::uint64_t>> rows;
  std::vector<std::vector<int>> row_lines;
  std::vector<int> row_start;
  struct RawEntry {
    std::uint64_t src, dst, bytes;
    int line;
  };
  std::vector<RawEntry> raw;
  if (!r.eat('}')) {
    do {
      const int key_line = r.line();
      const std::string key = r.key();
      r.expect(':', fmt::format("after the key \"{}\"", key).c_str());
      if (key == "gpus") {
        if (have_gpus) r.fail(key_line, "\"gpus\" is given twice");
        have_gpus = true;
        out.gpus_line = r.line();
        const char c = r.peek();
        if (!(c == '-' || (c >= '0' && c <= '9')))
          r.fail(r.line(), fmt::format("\"gpus\" must be a positive integer (got {})", r.value_kind()));
        const Reader::Number n = r.number();
        if (!n.integer || n.negative || n.too_big || n.u == 0 || n.u > 0xFFFFFFFFu)
          r.fail(out.gpus_line, fmt::format("\"gpus\" must be a positive integer (got {})", n.text));
        out.gpus = static_cast<std::uint32_t>(n.u);
      } else if (key == "bytes" || key == "entries") {
        const bool dense = key == "bytes";
        if ((dense && have_bytes) || (!dense && have_entries)) r.fail(key_line, fmt::format("\"{}\" is given twice", key));
        (dense ? have_bytes : have_entries) = true;
        body_line = key_line;
        if (r.peek() != '[') r.fail(r.line(), fmt::format("\"{}\" must be an array (got {})", key, r.value_kind()));
        r.expect('[', "");
        std::size_t index = 0;
        if (!r.eat(']')) {
          do {
            const int item_line = r.line();
            const std::string name = fmt::format("{}[{}]", key, index);
            if (r.peek() != '[')
              r.fail(item_line, fmt::format("{} must be an array (got {})", name, r.value_kind()));
            r.expect('[', "");
            std::vector<std::uint64_t> values;
            std::vector<int> lines;
            if (!r.eat(']')) {
              do {
                const int value_line = r.line();
                const std::string vname = fmt::format("{}[{}]", name, values.size());
                const char c = r.peek();
                if (!(c == '-' || (c >= '0' && c <= '9')))
                  r.fail(value_line, fmt::format("{} must be a number (got {})", vname, r.value_kind()));
                const Reader::Number n = r.number();
                std::uint64_t v = 0;
                std::string why;
                if (!dense && values.size() < 2) {  // src, dst
                  if (!n.integer || n.negative || n.too_big || n.u > 0xFFFFFFFFu)
                    r.fail(value_line, fmt::format("{} is not a GPU index ({}: must be a whole number >= 0)", vname,
                                                   n.text));
                  v = n.u;
                } else if (!byte_count(n, v, why)) {
                  r.fail(value_line, fmt::format("{} is not a byte count ({})", vname, why));
                }
                values.push_back(v);
                lines.push_back(value_line);
              } while (r.eat(','));
              r.expect(']', fmt::format("or ',' after {}", fmt::format("{}[{}]", name, values.size() - 1)).c_str());
            }
            if (dense) {
              rows.push_back(std::move(values));
              row_lines.push_back(std::move(lines));
              row_start.push_back(item_line);
            } else {
              if (values.size() != 3)
                r.fail(item_line, fmt::format("{} must be [src, dst, bytes] (got {} numbers)", name, values.size()));
              raw.push_back({values[0], values[1], values[2], item_line});
            }
            ++index;
          } while (r.eat(','));
          r.expect(']', fmt::format("or ',' after {}[{}]", key, index - 1).c_str());
        }
      } else {
        r.fail(key_line, fmt::format("unknown key \"{}\" (expected \"gpus\", \"bytes\" or \"entries\")", key));
      }
    } while (r.eat(','));
    r.expect('}', "or ',' after a member of the demand");
  }
  if (!r.at_end()) r.syntax(fmt::format("unexpected {} after the demand", r.shown()));
  if (!have_gpus) r.fail(1, "missing key \"gpus\" (the number of GPUs)");
  if (have_bytes == have_entries)
    r.fail(have_bytes ? body_line : 1,
           have_bytes ? "give \"bytes\" or \"entries\", not both" : "missing key \"bytes\" or \"entries\"");
  const std::uint32_t n = out.gpus;
  out.dense = have_bytes;
  if (out.dense) {
    if (rows.size() != n)
      r.fail(body_line, fmt::format("bytes has {} rows (\"gpus\" is {})", rows.size(), n));
    out.bytes.reserve(std::size_t{n} * n);
    out.lines.reserve(std::size_t{n} * n);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].size() != n)
        r.fail(row_start[i], fmt::format("bytes[{}] has {} entries (\"gpus\" is {})", i, rows[i].size(), n));
      out.bytes.insert(out.bytes.end(), rows[i].begin(), rows[i].end());
      out.lines.insert(out.lines.end(), row_lines[i].begin(), row_lines[i].end());
    }
  } else {
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k].src >= n || raw[k].dst >= n)
        r.fail(raw[k].line, fmt::format("entries[{}]: {} {} is not a GPU (\"gpus\" is {})", k,
                                        raw[k].src >= n ? "src" : "dst", raw[k].src >= n ? raw[k].src : raw[k].dst, n));
      out.entries.push_back({static_cast<std::uint32_t>(raw[k].src), static_cast<std::uint32_t>(raw[k].dst),
                             raw[k].bytes});
      out.lines.push_back(raw[k].line);
    }
  }
  return out;
}

DemandFile read_demand_file(const std::string& path) { return parse_demand(path, read_text(path)); }

}  // namespace vp::plan_cli
