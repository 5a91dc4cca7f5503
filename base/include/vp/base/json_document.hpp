// The located-JSON front end: every JSON input (topology, cluster, capacity
// defaults, catalog mirror, demand file) is read through a Document, so that
// every error names the file, the line and the column of the offending value,
// and shows that line with a caret under the column:
//
//   D.json:3:4: bytes[1][0]: demand entry is not a byte count (-1: bytes must be a finite whole number >= 0)
//     [-1, 0]]}
//      ^
//
// The document is parsed once with nlohmann::json; positions are found only
// when an error is reported (a scan of the text along the value's path), so
// reading a valid file pays nothing for them.
//
// The parsed tree takes far more memory than the text: 16 to 80 bytes a
// value, up to about 30 times the text for [[],[],...] and about 13 times
// for a demand file's numbers. Before parsing, one scan of the text (no
// allocation) estimates the tree from its tokens, with the cost of each as
// an upper bound of what nlohmann::ordered_json allocates for it, and refuses
// the document at the first value by which the estimate exceeds
// InputLimits::max_json_memory (--max-json-memory, default 2 GiB), naming
// its line and column. Why a scan and not nlohmann's callback or SAX
// interface: those report no position for a value that is not an error, and
// they run while the tree is built, so a refusal would come after memory was
// spent; the scan refuses before. A JSON input then takes at most its text
// (twice where a reader copies it) plus the budget plus what the reader
// builds from the tree (docs/importers.md "Limits"). On a machine (or under a
// ulimit -v) with less memory than the estimate and half again, the input is
// refused before parsing (InputError "out of memory while reading the file",
// exit 2): nlohmann frees a tree with a destructor that allocates, so a parse
// left to fail half-way would end in std::terminate, not in an error.
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
  // InputError at its line and column: "malformed JSON (why)"; a document
  // beyond the memory budget "too large to parse (...)" at the value that
  // exceeds it.
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
  void parse(ParseOptions options);

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
