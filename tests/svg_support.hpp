// What the picture tests (render_test.cpp, render_cli_test.cpp) share: an SVG
// parsed as XML, the elements of a class counted, its text read.
#pragma once

#include <doctest/doctest.h>

#include <pugixml.hpp>
#include <string>

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

}  // namespace vp::test
