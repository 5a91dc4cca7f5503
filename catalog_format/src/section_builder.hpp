// Building blocks of the writer: one section's bytes (section header plus
// zero-initialised fixed-size records) and the string table. Private to
// vp_catalog.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "vpcat/bytes.hpp"
#include "vpcat/format.hpp"

namespace vp::catalog::detail {

class SectionBuilder {
 public:
  explicit SectionBuilder(std::uint32_t record_size) : record_size_(record_size), bytes_(vpcat::section::size, 0) {}

  // Append one zeroed record; returns its first byte, valid until the next add.
  std::uint8_t* add() {
    ++count_;
    bytes_.resize(bytes_.size() + record_size_, 0);
    return bytes_.data() + bytes_.size() - record_size_;
  }
  void add_u32(std::uint32_t v) { vpcat::bytes::store_u32(add(), v); }
  void add_i32(std::int32_t v) { vpcat::bytes::store_i32(add(), v); }
  void add_f64(double v) { vpcat::bytes::store_f64(add(), v); }

  std::uint32_t count() const { return count_; }

  // The section's bytes, section header filled in.
  std::vector<std::uint8_t> finish() {
    vpcat::bytes::store_u32(bytes_.data() + vpcat::section::count, count_);
    vpcat::bytes::store_u32(bytes_.data() + vpcat::section::record_size, record_size_);
    return std::move(bytes_);
  }

 private:
  std::uint32_t record_size_;
  std::uint32_t count_ = 0;
  std::vector<std::uint8_t> bytes_;
};

// Distinct strings, numbered in the order they are first interned.
class StringTable {
 public:
  std::uint32_t intern(const std::string& s) {
    auto [it, fresh] = index_.emplace(s, static_cast<std::uint32_t>(strings_.size()));
    if (fresh) strings_.push_back(&it->first);
    return it->second;
  }

  // `count` u32 ends, then every string followed by a NUL byte.
  std::vector<std::uint8_t> finish() const {
    SectionBuilder ends(4);
    std::vector<std::uint8_t> text;
    for (const std::string* s : strings_) {
      text.insert(text.end(), s->begin(), s->end());
      text.push_back(0);
      ends.add_u32(static_cast<std::uint32_t>(text.size()));
    }
    std::vector<std::uint8_t> out = ends.finish();
    out.insert(out.end(), text.begin(), text.end());
    return out;
  }

 private:
  std::map<std::string, std::uint32_t> index_;
  std::vector<const std::string*> strings_;  // point into index_'s keys (stable)
};

}  // namespace vp::catalog::detail
