// What the picture tests (render_test.cpp, render_cli_test.cpp) share: an SVG
// parsed as XML, the elements of a class counted, its text read.
#pragma once

#include <doctest/doctest.h>

#include <pugixml.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

namespace vp::test {

// Elements `element` of class `cls` in `doc`.
inline std::size_t count(const pugi::xml_document& doc, const std::string& element, const std::string& cls) {
  return doc.select_nodes(("//" + element + "[@class='" + cls + "']").c_str()).size();
}

// Parse `svg` into `doc`, failing the test with pugixml's reason when it is
// not well-formed XML or not an <svg> document.
inline void parse(pugi::xml_document& doc, const std::string& svg) {
  const pugi::xml_parse_result r = doc.load_buffer(svg.data(), svg.size());
  INFO("XML error: " << r.description() << " at offset " << r.offset);
  REQUIRE(r);
  REQUIRE(std::string(doc.document_element().name()) == "svg");
}

// Every text node and tooltip (<title>) of `doc`, a line each.
inline std::string all_text(const pugi::xml_document& doc) {
  std::string s;
  for (const pugi::xpath_node& n : doc.select_nodes("//text()")) s += n.node().value(), s += '\n';
  for (const pugi::xpath_node& n : doc.select_nodes("//title")) s += n.node().child_value(), s += '\n';
  return s;
}

// The component boxes of a topology picture of the evaluation node
// (fixtures/platforms/pcie-gen4-2s4sw8g.json): 8 GPUs, 4 NICs, 4 switches, 2
// host bridges, 2 sockets, each kind one orbit (group order 128).
inline void check_evaluation_node_boxes(const pugi::xml_document& doc) {
  CHECK(count(doc, "rect", "component gpu") == 8);
  CHECK(count(doc, "rect", "component nic") == 4);
  CHECK(count(doc, "rect", "component pcie_switch") == 4);
  CHECK(count(doc, "rect", "component host_bridge") == 2);
  CHECK(count(doc, "rect", "component cpu") == 2);
  CHECK(count(doc, "rect", "orbit") == 5);
}

// The node and edge lines of a topology DOT file (`  cN [label=...`,
// `  cN -- cM [...`).
inline std::pair<std::size_t, std::size_t> dot_nodes_and_edges(const std::string& dot) {
  const std::regex node_line(R"(^  c\d+ \[label=)"), edge_line(R"(^  c\d+ -- c\d+ \[)");
  std::size_t nodes = 0, edges = 0;
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);) {
    nodes += std::regex_search(line, node_line);
    edges += std::regex_search(line, edge_line);
  }
  return {nodes, edges};
}

}  // namespace vp::test
