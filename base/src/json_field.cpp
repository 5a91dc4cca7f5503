#include "vp/base/json_field.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vp::json {

namespace {
const std::string kNoOrigin;
}  // namespace

std::string describe(const Json& j) {
  constexpr std::size_t kMaxShown = 40;
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  std::string text = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown - 4) + (j.is_string() ? "...\"" : "...");
  return text;
}

Field::Field(const Document& doc) : doc_(&doc), origin_(&doc.path()), j_(&doc.root()) {}

Field::Field(const Json& root, const std::string& origin) : doc_(nullptr), origin_(&origin), j_(&root) {}

InputError Field::error(const std::string& what) const {
  const std::string reason = name() + ": " + what;
  if (doc_ != nullptr) return doc_->error_at(path_, reason);
  return InputError(*origin_, 0, reason);
}

void Field::fail(const std::string& what) const { throw error(what); }

Field Field::child(Segment segment, const Json& j) const {
  Path p = path_;
  p.push_back(std::move(segment));
  return Field(doc_, origin_, &j, std::move(p));
}

// ---- objects

void Field::expect_object() const {
  if (!j_->is_object()) fail("must be an object, got " + describe(*j_));
}

void Field::allow_keys(std::initializer_list<std::string_view> allowed) const {
  expect_object();
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::string expected;
    std::size_t k = 0;
    for (std::string_view a : allowed) {
      expected += k == 0 ? "" : (k + 1 == allowed.size() ? " or " : ", ");
      expected += fmt::format("\"{}\"", a);
      ++k;
    }
    // Named as a problem of the object, shown at the key's value.
    const std::string reason = fmt::format("{}: unknown key \"{}\" (expected {})", name(), it.key(), expected);
    if (doc_ == nullptr) throw InputError(*origin_, 0, reason);
    Path key = path_;
    key.push_back(it.key());
    throw doc_->error_at(key, reason);
  }
}

void Field::require_keys(std::initializer_list<std::string_view> keys) const {
  allow_keys(keys);
  for (std::string_view k : keys)
    if (j_->find(k) == j_->end()) fail(fmt::format("missing key \"{}\"", k));
}

bool Field::has(std::string_view key) const {
  expect_object();
  return j_->find(key) != j_->end();
}

std::optional<Field> Field::find(std::string_view key) const {
  expect_object();
  auto it = j_->find(key);
  if (it == j_->end()) return std::nullopt;
  return child(std::string(key), *it);
}

Field Field::at(std::string_view key) const {
  std::optional<Field> f = find(key);
  if (!f) fail(fmt::format("missing key \"{}\"", key));
  return *f;
}

std::vector<std::pair<std::string, Field>> Field::members() const {
  expect_object();
  std::vector<std::pair<std::string, Field>> out;
  out.reserve(j_->size());
  for (auto it = j_->begin(); it != j_->end(); ++it) out.emplace_back(it.key(), child(it.key(), it.value()));
  return out;
}

// ---- arrays

std::size_t Field::size() const {
  if (!j_->is_array()) fail("must be an array, got " + describe(*j_));
  return j_->size();
}

Field Field::at(std::size_t index) const {
  if (index >= size()) fail(fmt::format("has no element {} ({} elements)", index, j_->size()));
  return child(index, (*j_)[index]);
}

std::vector<Field> Field::items(std::size_t at_most, std::string_view limit) const {
  const std::size_t n = size();
  if (n > at_most) fail(fmt::format("has {} entries, more than the limit of {} ({})", n, at_most, limit));
  std::vector<Field> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(child(i, (*j_)[i]));
  return out;
}

// ---- scalars

std::string Field::text() const {
  if (!j_->is_string()) fail("must be a string, got " + describe(*j_));
  return j_->get<std::string>();
}

bool Field::boolean() const {
  if (!j_->is_boolean()) fail("must be true or false, got " + describe(*j_));
  return j_->get<bool>();
}

double Field::number() const {
  if (!j_->is_number()) fail("must be a number, got " + describe(*j_));
  return j_->get<double>();
}

double Field::number_in(double lo, double hi, bool open_low) const {
  const double v = j_->is_number() ? j_->get<double>() : 0.0;
  if (!j_->is_number() || !std::isfinite(v) || !(open_low ? v > lo : v >= lo) || !(v <= hi))
    fail(fmt::format("must be a finite number {} {:g}{}, got {}", open_low ? ">" : ">=", lo,
                     std::isfinite(hi) ? fmt::format(" and <= {:g}", hi) : std::string(), describe(*j_)));
  return v;
}

std::int64_t Field::integer(std::int64_t lo, std::int64_t hi) const {
  if (j_->is_number_unsigned()) {
    const auto u = j_->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      const auto v = static_cast<std::int64_t>(u);
      if (v >= lo && v <= hi) return v;
    }
  } else if (j_->is_number_integer()) {
    const auto v = j_->get<std::int64_t>();
    if (v >= lo && v <= hi) return v;
  }
  fail(fmt::format("must be an integer from {} to {}, got {}", lo, hi, describe(*j_)));
}

std::uint64_t Field::u64() const {
  const bool non_negative = j_->is_number_unsigned() || (j_->is_number_integer() && j_->get<std::int64_t>() >= 0);
  if (!non_negative) fail("must be a non-negative integer, got " + describe(*j_));
  return j_->get<std::uint64_t>();
}

std::uint32_t Field::u32() const {
  const std::uint64_t v = u64();
  if (v > std::numeric_limits<std::uint32_t>::max()) fail(fmt::format("{} exceeds 2^32 - 1", v));
  return static_cast<std::uint32_t>(v);
}

}  // namespace vp::json
