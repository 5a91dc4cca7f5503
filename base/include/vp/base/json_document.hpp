// The located-JSON front end: every JSON input (topology, cluster, capacity
// defaults, catalog mirror, demand file) is read through a Document, so that
// every error names the file, the line and the column of the offending value,
// and shows that line with a caret under the column:
//
//   D.json:3:4: bytes[1][0] is not a byte count (-1: must be a whole number from 0 to 2^63)
//     [-1, 0]]}
//      ^
//
// The document is parsed once with nlohmann::json; positions are found only
// when an error is reported (a scan of the text along the value's path), so
// reading a valid file pays nothing for them.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "vp/base/errors.hpp"

namespace vp::json {

using Json = nlohmann::ordered_json;

// A place in a document: object keys and array indexes from the root.
using Segment = std::variant<std::string, std::size_t>;
using Path = std::vector<Segment>;

// "links[5].capacity_gbps"; "document" for the root.
std::string format_path(const Path& path);
// The inverse of format_path(), for readers that keep paths as text. A key
// holding '.' or '[' is split (the error then points at an enclosing value).
Path parse_path(std::string_view text);

struct ParseOptions {
  // A key given twice in one object is an error ("\"gpus\" is given twice",
  // at the second one) instead of the last one winning.
  bool reject_duplicate_keys = false;
};

class Document {
 public:
  // Parse `text`; `path` names the file in messages. A syntax error throws
  // InputError at its line and column: "malformed JSON (why)".
  Document(std::string path, std::string text, ParseOptions options = {});
  // Read and parse the file `path`. InputError(path, 0, "cannot read the
  // file (the system's reason)") when it cannot be read.
  static Document read_file(const std::string& path, ParseOptions options = {});

  const Json& root() const noexcept { return root_; }
  const std::string& path() const noexcept { return path_; }
  const std::string& text() const noexcept { return text_; }

  // Byte offset where the value at `where` starts (of the deepest enclosing
  // value that exists when `where` does not). Keys are compared as written:
  // a key spelled with escapes is not found.
  std::size_t offset_of(const Path& where) const;
  // The text of the value at `where` ("-1", "1e3", "[0, 1]").
  std::string_view source_of(const Path& where) const;

  // An InputError at the value `where`, reading `reason` (which should name
  // the value: "links[5].capacity_gbps: must be ...").
  InputError error_at(const Path& where, const std::string& reason) const;
  InputError error_at_offset(std::size_t offset, const std::string& reason) const;

 private:
  std::string path_;
  std::string text_;
  Json root_;
};

// The line of `text` holding byte `offset`, then a line with a caret under
// that byte (long lines are cut around it, marked "..."). No final newline.
std::string excerpt(std::string_view text, std::size_t offset);
// 1-based line and column (in bytes) of byte `offset` of `text`.
void line_column(std::string_view text, std::size_t offset, int& line, int& column);

}  // namespace vp::json
