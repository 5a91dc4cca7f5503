// Writer and reader: Catalog -> bytes -> Catalog, bytes -> JSON -> bytes,
// determinism, and the writer's refusals.
#include <doctest/doctest.h>

#include <filesystem>

#include "catalog_support.hpp"
#include "input_error.hpp"
#include "support.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"
#include "vpcat/catalog_view.hpp"
#include "vpcat/mapped_file.hpp"

namespace {

using namespace vp::catalog;
using vp::test::mixed_catalog;
using vp::test::rail_catalog;
using vp::test::single_node_catalog;

std::string write_error(const Catalog& c) {
  return vp::test::message_of<CatalogError>([&] { write_catalog(c); });
}

}  // namespace

TEST_CASE("catalog: Catalog -> bytes -> Catalog gives the same catalog") {
  for (const Catalog& c : {rail_catalog(), mixed_catalog(), single_node_catalog()}) {
    const std::vector<std::uint8_t> bytes = write_catalog(c);
    CHECK(read_catalog(bytes) == c);
  }
}

TEST_CASE("catalog: bytes -> JSON -> bytes is byte-identical") {
  for (const Catalog& c : {rail_catalog(), mixed_catalog(), single_node_catalog()}) {
    const std::vector<std::uint8_t> bytes = write_catalog(c);
    const std::string text = dump_json(read_catalog(bytes));
    const Catalog back = parse_json_catalog(text, "mirror.json");
    CHECK(back == c);
    CHECK(write_catalog(back) == bytes);
    CHECK(dump_json(back) == text);
  }
}

TEST_CASE("catalog: identical catalogs give identical bytes") {
  const Catalog a = rail_catalog();
  Catalog b = rail_catalog();
  CHECK(write_catalog(a) == write_catalog(b));
  CHECK(write_catalog(a) == write_catalog(a));
  b.provenance.options = "ports_per_gpu=2";
  CHECK(write_catalog(a) != write_catalog(b));
}

TEST_CASE("catalog: the layout is fixed: header, table, sections 64-byte aligned in type order") {
  const std::vector<std::uint8_t> bytes = write_catalog(rail_catalog());
  vpcat::CatalogView view;
  REQUIRE(vpcat::CatalogView::open(bytes.data(), bytes.size(), &view).ok());
  CHECK(view.section_count() == vpcat::kLastRequiredSectionType);  // no machine model: a 1.1 file
  std::uint64_t previous_end = vpcat::header::size + view.section_count() * vpcat::entry::entry_size;
  for (std::uint32_t i = 0; i < view.section_count(); ++i) {
    const vpcat::SectionEntry e = view.section(i);
    CHECK(e.type == i + 1);
    CHECK(e.flags == 0);
    CHECK(e.offset % 64 == 0);
    CHECK(e.offset >= previous_end);
    CHECK(e.offset - previous_end < 64);
    previous_end = e.offset + e.size;
  }
  CHECK(previous_end == bytes.size());
  CHECK(view.layout().writer_major == writer_version().major);
}

TEST_CASE("catalog: the writer refuses what it cannot encode, naming it") {
  Catalog c = rail_catalog();
  c.node_types[0].link_orbit.pop_back();
  CHECK(write_error(c) == "catalog: node type 0 \"quad\": link_orbit has 17 entries for 18 links");
  c = rail_catalog();
  c.node_types[0].patterns[1].recv.pop_back();
  CHECK(write_error(c) == "catalog: node type 0 \"quad\": pattern 1 has 4 send and 3 recv roles for 4 GPUs");
  c = rail_catalog();
  c.fabric.spine_uplink_gbps.clear();
  CHECK(write_error(c) == "catalog: fabric: spine_uplink_gbps has 0 entries for 2 switches");
}

TEST_CASE("catalog: the writer refuses a catalog that breaks a format rule, with the verifier's message") {
  Catalog c = rail_catalog();
  c.node_types[0].links[3].capacity_gbps = -1;
  CHECK(write_error(c) ==
        "catalog breaks a format rule: section 'links' at offset 0x780: number out of range "
        "(link 3: capacity_gbps must be finite and > 0)");
  c = rail_catalog();
  c.fabric.switches = 3;
  c.fabric.spine_uplink_gbps.push_back(100.0);
  CHECK(write_error(c) ==
        "catalog breaks a format rule: section 'cluster' at offset 0x1110: fabric is inconsistent with the nodes "
        "(3 switches, this fabric and these nodes need 2)");
  c = rail_catalog();
  c.defaults = {{"pcie.gen4", 24.0}, {"nic_efficiency", 1.0}};
  CHECK(write_error(c).find("records are not in canonical order (default 1: keys are sorted bytewise") !=
        std::string::npos);
  c = rail_catalog();
  c.node_types[0].group_order = "1e9";
  CHECK(write_error(c).find("not a decimal integer (record 0: group_order)") != std::string::npos);
}

TEST_CASE("catalog: strings are stored once each") {
  Catalog c = single_node_catalog();
  const std::size_t before = write_catalog(c).size();
  c.node_groups[0].names = "duo";  // already in the table (the node type's name), one host name as before
  CHECK(write_catalog(c).size() <= before);
}

TEST_CASE("catalog: files of every released format version keep loading, and mirror to their committed JSON") {
  // fixtures/catalogs/format-MAJOR.MINOR/ (SPEC.md §8): every file there is a
  // catalog or its mirror, in pairs; each catalog passes the runtime loader
  // (mmap + verify + view, what an embedder does) and the tool-side reader,
  // and its mirror is the committed JSON. Files of the format this writer
  // produces also come back byte for byte from their mirror.
  namespace fs = std::filesystem;
  const std::string kCurrentFormatDir =
      "format-" + std::to_string(vpcat::kFormatMajor) + "." + std::to_string(vpcat::kFormatMinor);
  CHECK(fs::exists(vp::test::fixture("catalogs/" + kCurrentFormatDir)));
  std::size_t versions = 0, files = 0;
  for (const auto& version : fs::directory_iterator(vp::test::fixture("catalogs"))) {
    const std::string dir = version.path().filename().string();
    if (!version.is_directory() || dir.rfind("format-", 0) != 0) continue;
    ++versions;
    std::size_t here = 0;
    for (const auto& e : fs::directory_iterator(version.path())) {
      const fs::path path = e.path();
      CAPTURE(path.string());
      REQUIRE((path.extension() == ".vpcat" || path.extension() == ".json"));
      const fs::path partner = fs::path(path).replace_extension(path.extension() == ".vpcat" ? ".json" : ".vpcat");
      CHECK_MESSAGE(fs::exists(partner), "no " << partner.string() << " beside it");
      if (path.extension() != ".vpcat") continue;

      vpcat::MappedFile mapped;
      const vpcat::Status opened = vpcat::MappedFile::open(path.string().c_str(), &mapped);
      REQUIRE_MESSAGE(opened.ok(), opened.message());
      vpcat::CatalogView view;
      const vpcat::Status verified = vpcat::CatalogView::open(mapped.data(), mapped.size(), &view);
      REQUIRE_MESSAGE(verified.ok(), verified.message());
      CHECK(view.node_type_count() >= 1);
      CHECK(view.gpu_count() >= 1);

      const Catalog c = read_catalog_file(path.string());
      const std::string mirror = vp::test::read_text(fs::path(path).replace_extension(".json").string());
      // The committed mirror reads back to the same catalog; in the format this
      // writer produces it is also what dump_json writes, and the file comes
      // back byte for byte from it.
      CHECK(parse_json_catalog(mirror, "mirror.json") == c);
      if (dir == kCurrentFormatDir) {
        CHECK(dump_json(c) == mirror);
        CHECK(write_catalog(parse_json_catalog(mirror, "mirror.json")) == vp::test::read_binary(path.string()));
      }
      ++here;
      ++files;
    }
    CHECK_MESSAGE(here >= 1, dir << " holds no catalog");
  }
  CHECK(versions >= 1);
  CHECK(files >= 1);
}
