// The JSON mirror: its shape, readable roles and generators, and every
// rejected document with its whole message.
#include <doctest/doctest.h>

#include "catalog_support.hpp"
#include "input_error.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/names.hpp"

namespace {

using namespace vp::catalog;

Json mirror() { return to_json(vp::test::rail_catalog()); }

std::string error_of(const Json& j) {
  return vp::test::message_of<CatalogError>([&] { from_json(j, "c.json"); });
}

}  // namespace

TEST_CASE("json: roles and generators are written for people") {
  const Json j = mirror();
  const Json& quad = j["node_types"][0];
  CHECK(quad["symmetry"]["generators"] == Json::array({"(4 5)", "(2 3)(4 6)(5 7)(8 9)"}));
  CHECK(quad["patterns"]["representatives"][1]["send"] == Json::parse(R"(["nic0", null, "nic1", null])"));
  CHECK(quad["components"][0]["parent"].is_null());
  CHECK(quad["components"][4]["kind"] == "gpu");
  CHECK(j["defaults"]["pcie.gen4"] == 24.0);
  CHECK(j["format"] == "vpcat-json");
  CHECK(j["format_version"] == "1.1");
}

TEST_CASE("json: cycle notation round-trips every permutation") {
  const std::vector<std::uint32_t> p = {0, 2, 3, 1, 5, 4, 6};
  CHECK(cycles_text(p) == "(1 2 3)(4 5)");
  CHECK(parse_cycles("(1 2 3)(4 5)", 7) == p);
  CHECK(parse_cycles("()", 3) == std::vector<std::uint32_t>{0, 1, 2});
  CHECK_FALSE(parse_cycles("(1 1)", 3));
  CHECK_FALSE(parse_cycles("(1 3)", 3));
  CHECK_FALSE(parse_cycles("(1)", 3));
  CHECK_FALSE(parse_cycles("(1 2", 3));
  CHECK_FALSE(parse_cycles("", 3));
}

TEST_CASE("json: rejected documents name the path and the problem") {
  Json j = mirror();
  j["node_types"][0]["components"][3]["kind"] = "gpux";
  CHECK(error_of(j) ==
        "c.json: node_types[0].components[3].kind: unknown value \"gpux\" "
        "(expected cpu, host_bridge, pcie_switch, gpu, nic or net_switch)");
  j = mirror();
  j["node_types"][0]["links"][2]["id"] = 7;
  CHECK(error_of(j) == "c.json: node_types[0].links[2].id: is 7, expected its index 2");
  j = mirror();
  j["fabric"]["colour"] = "blue";
  CHECK(error_of(j) == "c.json: fabric: unknown key \"colour\" (expected \"kind\", \"leaf_size\", \"oversubscription\", "
                       "\"switches\", \"spine\", \"spine_uplink_gbps\", \"group_description\" or \"group_order\")");
  j = mirror();
  j["provenance"].erase("options");
  CHECK(error_of(j) == "c.json: provenance: missing key \"options\"");
  j = mirror();
  j["node_types"][0]["patterns"]["representatives"][0]["send"][1] = "gpu2";
  CHECK(error_of(j) ==
        "c.json: node_types[0].patterns.representatives[0].send[1]: role \"gpu2\" is not \"nicK\"");
  j = mirror();
  j["node_types"][0]["symmetry"]["generators"][0] = "(4 40)";
  CHECK(error_of(j) ==
        "c.json: node_types[0].symmetry.generators[0]: \"(4 40)\" is not a permutation of the 10 components in "
        "cycle notation");
  j = mirror();
  j["node_groups"][0]["count"] = -4;
  CHECK(error_of(j) == "c.json: node_groups[0].count: must be a non-negative integer, got -4");
  j = mirror();
  j["format_version"] = "2.0";
  CHECK(error_of(j) == "c.json: format_version: format 2.0 is not readable by this tool (format 1.2)");
  CHECK(error_of(Json::array()) == "c.json: document: must be an object, got an array");
}

TEST_CASE("json: malformed text is unreadable, not invalid") {
  try {
    parse_json_catalog("{\"format\": ", "c.json");
    FAIL("parsed");
  } catch (const CatalogError& e) {
    CHECK(e.kind() == CatalogError::Kind::unreadable);
    CHECK(std::string(e.what()) ==
          "c.json:1:11: malformed JSON (syntax error while parsing value - unexpected end of input; expected '[', "
          "'{', or a literal)\n"
          "{\"format\": \n"
          "          ^");
  }
}
