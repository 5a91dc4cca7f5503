// The verifier beyond the corrupt fixtures: checksum and UTF-8 primitives,
// every truncation and every byte flip of a valid file, forward
// compatibility (newer minor versions, larger records, skippable sections)
// and the limits.
#include <doctest/doctest.h>

#include <string>

#include "catalog_support.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"
#include "vpcat/crc32c.hpp"
#include "vpcat/utf8.hpp"
#include "vpcat/verify.hpp"

namespace {

using vpcat::Error;
using vpcat::SectionType;
namespace b = vpcat::bytes;

std::vector<std::uint8_t> valid() { return vp::catalog::write_catalog(vp::test::rail_catalog()); }

vpcat::Status check(const std::vector<std::uint8_t>& bytes, const vpcat::VerifyOptions& o = {}) {
  return vpcat::verify(bytes.data(), bytes.size(), nullptr, o);
}

bool utf8_ok(const std::string& s) {
  return vpcat::utf8_invalid_at(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()) == s.size();
}

}  // namespace

TEST_CASE("verify: CRC-32C gives the standard check value") {
  const std::string s = "123456789";
  CHECK(vpcat::crc32c(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()) == 0xE3069283u);
  const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
  CHECK(vpcat::crc32c_extend(vpcat::crc32c(p, 4), p + 4, 5) == 0xE3069283u);
}

TEST_CASE("verify: UTF-8 validation follows RFC 3629") {
  CHECK(utf8_ok("gpu0 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  CHECK_FALSE(utf8_ok("\xC0\xAF"));          // overlong
  CHECK_FALSE(utf8_ok("\xED\xA0\x80"));      // surrogate
  CHECK_FALSE(utf8_ok("\xF4\x90\x80\x80"));  // above U+10FFFF
  CHECK_FALSE(utf8_ok("\xE2\x82"));          // cut short
  CHECK_FALSE(utf8_ok("\x80"));              // lone continuation
}

TEST_CASE("verify: a valid file passes, every shorter prefix is 'truncated'") {
  const std::vector<std::uint8_t> bytes = valid();
  REQUIRE(check(bytes).ok());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<std::uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    const vpcat::Status s = check(prefix);
    CAPTURE(n);
    CHECK(s.code() == Error::truncated);
  }
}

TEST_CASE("verify: every single-byte change is detected") {
  std::vector<std::uint8_t> bytes = valid();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] ^= 0x40;
    CAPTURE(i);
    CHECK_FALSE(check(bytes).ok());
    bytes[i] ^= 0x40;
  }
}

TEST_CASE("verify: byte changes behind fresh checksums are caught by the structural checks or harmless") {
  // Sanitizer builds turn any out-of-bounds read here into a failure.
  const std::vector<std::uint8_t> base = valid();
  std::size_t rejected = 0;
  for (std::size_t i = 0; i < base.size(); ++i)
    for (std::uint8_t v : {std::uint8_t{0x00}, std::uint8_t{0xFF}, std::uint8_t{0x80}}) {
      std::vector<std::uint8_t> bytes = base;
      bytes[i] = v;
      vp::test::reseal(bytes);
      vpcat::CatalogView view;
      if (vpcat::CatalogView::open(bytes.data(), bytes.size(), &view).ok()) {
        vp::catalog::to_catalog(view);  // every accessor stays inside the buffer
      } else {
        ++rejected;
      }
    }
  CHECK(rejected > base.size());
}

TEST_CASE("verify: a newer minor version is read when it does not require a newer reader") {
  std::vector<std::uint8_t> bytes = valid();
  b::store_u16(&bytes[vpcat::header::format_minor], 7);
  vp::test::reseal(bytes);
  CHECK(check(bytes).ok());
  b::store_u16(&bytes[vpcat::header::min_reader_minor], 8);
  vp::test::reseal(bytes);
  CHECK(std::string(check(bytes).message()) ==
        "header at offset 0xc: malformed header field (min_reader_minor 8 is above the file's format_minor 7)");
}

TEST_CASE("verify: larger records of a later minor version are read, their extra bytes ignored") {
  const std::vector<std::uint8_t> base = valid();
  std::vector<vp::test::Part> parts = vp::test::split(base);
  for (vp::test::Part& p : parts) {
    if (p.type != static_cast<std::uint32_t>(SectionType::components)) continue;
    const std::uint32_t count = b::load_u32(&p.body[0]), size = b::load_u32(&p.body[4]);
    std::vector<std::uint8_t> body(8, 0);
    b::store_u32(&body[0], count);
    b::store_u32(&body[4], size + 16);
    for (std::uint32_t i = 0; i < count; ++i) {
      body.insert(body.end(), p.body.begin() + 8 + i * size, p.body.begin() + 8 + (i + 1) * size);
      body.insert(body.end(), 16, 0xEE);
    }
    p.body = body;
  }
  const std::vector<std::uint8_t> wide = vp::test::join(base, parts);
  REQUIRE(check(wide).ok());
  CHECK(vp::catalog::read_catalog(wide) == vp::test::rail_catalog());
}

TEST_CASE("verify: an unknown section marked may_skip is ignored") {
  const std::vector<std::uint8_t> base = valid();
  std::vector<vp::test::Part> parts = vp::test::split(base);
  parts.push_back(vp::test::Part{40, vpcat::kSectionMaySkip, std::vector<std::uint8_t>(24, 0x33)});
  const std::vector<std::uint8_t> extended = vp::test::join(base, parts);
  REQUIRE(check(extended).ok());
  CHECK(vp::catalog::read_catalog(extended) == vp::test::rail_catalog());
}

TEST_CASE("verify: limits are options") {
  const std::vector<std::uint8_t> bytes = valid();
  vpcat::VerifyOptions o;
  o.max_nodes = 3;
  CHECK(std::string(check(bytes, o).message()) ==
        "section 'node_groups' at offset 0x10cc: a configured limit is exceeded "
        "(4 nodes up to node group 0, limit max_nodes 3)");
  o = {};
  o.max_tree_depth = 2;
  CHECK(std::string(check(bytes, o).message()) ==
        "section 'components' at offset 0x5cc: malformed PCIe tree (component 4: its parent chain does not reach "
        "a cpu within 2 steps: a cycle, or deeper than max_tree_depth)");
  o = {};
  o.max_file_size = 1000;
  CHECK(std::string(check(bytes, o).message()) ==
        "file: file exceeds the size limit (" + std::to_string(bytes.size()) + " bytes, limit max_file_size 1000)");
  o = {};
  o.max_sections = 10;
  CHECK(check(bytes, o).code() == Error::too_many_sections);
}

TEST_CASE("verify: every error code has a distinct name and a message") {
  for (std::uint16_t i = 0; i <= vpcat::kLastError; ++i) {
    const vpcat::ErrorInfo& e = vpcat::error_info(static_cast<Error>(i));
    CHECK(static_cast<std::uint16_t>(e.code) == i);
    CHECK(std::string(e.name).size() > 1);
    CHECK(std::string(e.message).size() > 1);
    for (std::uint16_t k = 0; k < i; ++k)
      CHECK(std::string(vpcat::error_info(static_cast<Error>(k)).name) != e.name);
  }
}
