// The machine_model section (format 1.2, SPEC.md §6.13): written with its
// sources, read back, mirrored in JSON both ways, absent from 1.1 files
// (which still read), and refused with its SPEC code when damaged.
#include <doctest/doctest.h>

#include <cstring>

#include "catalog_support.hpp"
#include "support.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/machine_model.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"
#include "vpcat/bytes.hpp"
#include "vpcat/catalog_view.hpp"
#include "vpcat/planner/catalog_machine.hpp"
#include "vpcat/verify.hpp"

namespace {

using namespace vp::catalog;
using vp::test::rail_catalog;

constexpr auto kModelType = static_cast<std::uint32_t>(vpcat::SectionType::machine_model);

// A model unlike the class defaults in every value: two families, nic off.
MachineModelSpec two_family_model() {
  MachineModelSpec m = class_default_model();
  m.forwarder.slope = {0.05, "measured: p2pmark dense8 on node a"};
  m.families.push_back({"Intel(R) Xeon(R)", {0.2, "table t.json"}, {0.3, "table t.json"}});
  m.nic.on = false;
  m.chunk_overhead_us = {0.0, "table t.json"};
  return m;
}

Catalog with_model(const MachineModelSpec& m) {
  Catalog c = rail_catalog();
  c.machine_model = m;
  return c;
}

// The verifier's code for `c`'s bytes after `edit` of record `record`
// (`field` offset) of the machine model section, checksums recomputed.
template <typename Edit>
vpcat::Error damaged(const Catalog& c, std::uint32_t record, std::size_t field, Edit edit) {
  std::vector<std::uint8_t> bytes = write_catalog(c);
  const std::uint64_t at = vp::test::section_offset(bytes, kModelType) + vpcat::section::size +
                           std::uint64_t{record} * vpcat::model_entry::size + field;
  edit(bytes.data() + at, bytes);
  vp::test::reseal(bytes);
  return vpcat::verify(bytes.data(), bytes.size(), nullptr).code();
}

vpcat::Error writer_code(const Catalog& c) {
  try {
    write_catalog(c);
  } catch (const CatalogError& e) {
    return e.code();
  }
  return vpcat::Error::ok;
}

}  // namespace

TEST_CASE("machine model: binary -> Catalog -> JSON -> binary is byte-identical, the section may_skip, format 1.2") {
  for (const MachineModelSpec& m : {class_default_model(), two_family_model(),
                                    model_spec(vpcat::MachineModel::ideal(), "ideal: every loss off")}) {
    const Catalog c = with_model(m);
    const std::vector<std::uint8_t> bytes = write_catalog(c);
    CHECK(read_catalog(bytes) == c);
    const std::string text = dump_json(c);
    const Catalog back = parse_json_catalog(text, "mirror.json");
    CHECK(back == c);
    CHECK(write_catalog(back) == bytes);
    CHECK(to_json(c)["format_version"] == "1.2");
    vpcat::CatalogView view;
    REQUIRE(vpcat::CatalogView::open(bytes.data(), bytes.size(), &view).ok());
    CHECK(view.layout().format_minor == 2);
    CHECK(view.layout().min_reader_minor == 0);
    const vpcat::SectionEntry last = view.section(view.section_count() - 1);
    CHECK(last.type == kModelType);
    CHECK(last.flags == vpcat::kSectionMaySkip);
  }
}

TEST_CASE("machine model: a catalog without one is a 1.1 file, and reads as the class defaults in the planner") {
  const Catalog c = rail_catalog();
  const std::vector<std::uint8_t> bytes = write_catalog(c);
  vpcat::CatalogView view;
  REQUIRE(vpcat::CatalogView::open(bytes.data(), bytes.size(), &view).ok());
  CHECK(view.layout().format_minor == 1);
  CHECK_FALSE(view.has_machine_model());
  CHECK(to_json(c)["format_version"] == "1.1");
  CHECK_FALSE(to_json(c).contains("machine_model"));
  vpcat::MachineModel m = vpcat::MachineModel::ideal();
  CHECK_FALSE(vpcat::catalog_machine_model(view, &m));
  CHECK_FALSE(m.forwarder.on);  // untouched
}

TEST_CASE("machine model: the kept 1.1 and 1.0 files and their mirrors still read, without a model") {
  for (const char* dir : {"catalogs/format-1.0", "catalogs/format-1.1"}) {
    CAPTURE(dir);
    const Catalog c = read_catalog_file(vp::test::fixture(std::string(dir) + "/quad-rail4.vpcat"));
    CHECK_FALSE(c.machine_model.has_value());
    const Catalog mirror = parse_json_catalog(vp::test::read_text(vp::test::fixture(std::string(dir) + "/quad-rail4.json")),
                                              "quad-rail4.json");
    CHECK_FALSE(mirror.machine_model.has_value());
  }
  const Catalog c12 = read_catalog_file(vp::test::fixture("catalogs/format-1.2/quad-rail4.vpcat"));
  REQUIRE(c12.machine_model.has_value());
  CHECK(*c12.machine_model == class_default_model());
}

TEST_CASE("machine model: the planner's model of the section is what was written") {
  const MachineModelSpec spec = two_family_model();
  const std::vector<std::uint8_t> bytes = write_catalog(with_model(spec));
  vpcat::CatalogView view;
  REQUIRE(vpcat::CatalogView::open(bytes.data(), bytes.size(), &view).ok());
  vpcat::MachineModel m;
  REQUIRE(vpcat::catalog_machine_model(view, &m));
  CHECK(m.invalid_field() == nullptr);
  CHECK(m.forwarder.slope == 0.05);
  CHECK(m.family_count == 2);
  CHECK(m.families[1].match_view() == "Intel(R) Xeon(R)");
  CHECK(m.families[1].curve.slope == 0.2);
  CHECK(m.families[1].curve.floor == 0.3);
  CHECK_FALSE(m.nic.on);
  CHECK(m.chunk_on);
  CHECK(m.chunk_overhead_us == 0.0);
  const vpcat::MachineModel direct = runtime_model(spec);
  CHECK(std::memcmp(&direct.forwarder, &m.forwarder, sizeof(m.forwarder)) == 0);
  CHECK(direct.families[1].match_view() == m.families[1].match_view());
}

TEST_CASE("machine model: values out of range are refused with bad_number by the writer's verification") {
  MachineModelSpec m = class_default_model();
  m.forwarder.floor.value = 0.0;
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_number);
  m = class_default_model();
  m.nic.floor.value = 1.5;
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_number);
  m = class_default_model();
  m.families[0].slope.value = -0.1;
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_number);
  m = class_default_model();
  m.chunk_bytes.value = 0.0;
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_number);
  m = class_default_model();
  m.chunk_overhead_us.value = std::numeric_limits<double>::infinity();
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_number);
  m = class_default_model();
  m.families[0].match = std::string(48, 'x');
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_machine_model);
  m.families[0].match = "";
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_machine_model);
  m = class_default_model();
  m.families.resize(9, m.families[0]);
  CHECK(writer_code(with_model(m)) == vpcat::Error::bad_count);
}

TEST_CASE("machine model: damaged records are refused with their SPEC code, located in the section") {
  const Catalog c = with_model(class_default_model());  // forwarder, AMD EPYC, nic, chunk
  namespace f = vpcat::model_entry;
  CHECK(damaged(c, 0, f::part, [](std::uint8_t* p, auto&) { *p = 7; }) == vpcat::Error::bad_enum);
  CHECK(damaged(c, 2, f::part, [](std::uint8_t* p, auto&) { *p = 3; }) == vpcat::Error::bad_order);  // nic -> chunk
  CHECK(damaged(c, 0, f::part, [](std::uint8_t* p, auto&) { *p = 2; }) == vpcat::Error::bad_order);
  CHECK(damaged(c, 1, f::flags, [](std::uint8_t* p, auto&) { *p = 1; }) == vpcat::Error::reserved_flag);  // a family's on
  CHECK(damaged(c, 0, f::flags, [](std::uint8_t* p, auto&) { *p = 0x80; }) == vpcat::Error::reserved_flag);
  CHECK(damaged(c, 3, f::reserved, [](std::uint8_t* p, auto&) { *p = 1; }) == vpcat::Error::reserved_nonzero);
  CHECK(damaged(c, 3, f::a_source, [](std::uint8_t* p, auto&) { vpcat::bytes::store_u32(p, 0xFFFFFF); }) ==
        vpcat::Error::bad_string_ref);
  CHECK(damaged(c, 0, f::b, [](std::uint8_t* p, auto&) { vpcat::bytes::store_f64(p, 2.0); }) == vpcat::Error::bad_number);
  // The chunk record cut off: three records where four belong.
  CHECK(damaged(c, 0, 0, [](std::uint8_t*, std::vector<std::uint8_t>& bytes) {
          const std::uint64_t s = vp::test::section_offset(bytes, kModelType);
          vpcat::bytes::store_u32(bytes.data() + s + vpcat::section::count, 3);
          std::vector<vp::test::Part> parts = vp::test::split(bytes);
          parts.back().body.resize(vpcat::section::size + 3 * vpcat::model_entry::size);
          bytes = vp::test::join(bytes, parts);
        }) == vpcat::Error::bad_count);
  // The message names the section and the offset of the damaged field.
  std::vector<std::uint8_t> bytes = write_catalog(c);
  const std::uint64_t at = vp::test::section_offset(bytes, kModelType) + vpcat::section::size + f::b;
  vpcat::bytes::store_f64(bytes.data() + at, 0.0);
  vp::test::reseal(bytes);
  const vpcat::Status s = vpcat::verify(bytes.data(), bytes.size(), nullptr);
  char expected[160];
  std::snprintf(expected, sizeof expected,
                "section 'machine_model' at offset 0x%llx: number out of range (record 0: floor 0 must be normal and "
                "in (0, 1])",
                static_cast<unsigned long long>(at));
  CHECK(std::string(s.message()) == expected);
}
