// The one way a reader takes typed fields from a JSON document: a Field is
// a value and its place (the path from the root), and every read that finds
// the wrong thing throws an InputError at the value's line and column
// (Document::error_at) that reads "PATH: what, got VALUE":
//
//   C.json:7:16: forwarder.slope.value: must be a finite number >= 0, got "x"
//     "slope": {"value": "x", "source": "..."},
//                        ^
//
// Every JSON reader of the tools (topology, cluster, catalog mirror, demand,
// contention table, capacity defaults, measured capacities) reads through
// it, so the wording of a wrong type, a missing key or an unknown key is the
// same in every file a user can give.
//
// Unknown keys: a reader states its policy per object, allow_keys() (an
// unknown key is an error at that key, naming the keys that are allowed) or
// nothing (extra keys are ignored, for formats another tool writes, such as
// nvbandwidth's).
//
// A Field over a tree without text (Field(json, origin)) fails the same way
// without a line: "ORIGIN: PATH: what".
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/base/json_document.hpp"

namespace vp::json {

// The offending value in messages: "an object", "an array", or the value as
// JSON ("\"abc\"", "-3", "null"), cut to 40 characters.
std::string describe(const Json& j);

class Field {
 public:
  // The root of `doc` (which must outlive the Field and every Field made
  // from it).
  explicit Field(const Document& doc);
  // The root of a tree without text; `origin` names it in messages. Both
  // must outlive the Field.
  Field(const Json& root, const std::string& origin);

  const Json& json() const noexcept { return *j_; }
  const Path& path() const noexcept { return path_; }
  // "links[5].capacity_gbps"; "document" for the root.
  std::string name() const { return format_path(path_); }
  bool is_null() const noexcept { return j_->is_null(); }

  // An InputError at this value reading "PATH: what".
  InputError error(const std::string& what) const;
  [[noreturn]] void fail(const std::string& what) const;

  // ---- objects: each fails "must be an object, got X" on another value
  void expect_object() const;
  // Every key is one of `allowed`; else "PATH: unknown key \"k\" (expected
  // \"a\", \"b\" or \"c\")", shown at the key's value.
  void allow_keys(std::initializer_list<std::string_view> allowed) const;
  // Exactly the keys `keys`: allow_keys(keys), and "missing key \"k\"" at
  // the object for the first of them that is absent.
  void require_keys(std::initializer_list<std::string_view> keys) const;
  bool has(std::string_view key) const;
  // The member `key`, if present.
  std::optional<Field> find(std::string_view key) const;
  // The member `key`; "missing key \"k\"" at the object when absent.
  Field at(std::string_view key) const;
  // The members in document order.
  std::vector<std::pair<std::string, Field>> members() const;

  // ---- arrays: each fails "must be an array, got X" on another value
  std::size_t size() const;
  Field at(std::size_t index) const;
  // The elements; refused past `at_most` before any is made ("has N
  // entries, more than the limit of M (LIMIT)"): each carries its path.
  std::vector<Field> items(std::size_t at_most = std::numeric_limits<std::size_t>::max(),
                           std::string_view limit = {}) const;

  // ---- scalars: each fails "must be ..., got X"
  std::string text() const;
  bool boolean() const;
  double number() const;
  // A finite number in [lo, hi] ((lo, hi] when `open_low`; no upper bound
  // when hi is infinite).
  double number_in(double lo, double hi = std::numeric_limits<double>::infinity(), bool open_low = false) const;
  std::int64_t integer(std::int64_t lo, std::int64_t hi) const;
  std::uint64_t u64() const;  // a whole number >= 0 written as an integer
  std::uint32_t u32() const;

 private:
  Field(const Document* doc, const std::string* origin, const Json* j, Path path)
      : doc_(doc), origin_(origin), j_(j), path_(std::move(path)) {}
  Field child(Segment segment, const Json& j) const;

  const Document* doc_;
  const std::string* origin_;
  const Json* j_;
  Path path_;
};

}  // namespace vp::json
