// vp::escape_xml (base/include/vp/base/xml.hpp), the one XML escape: the SVG
// pictures and the SimGrid platform write names with it. The pictures'
// copy replaced U+FFFE and U+FFFF and invalid UTF-8; the platform's escaped
// markup only, so a control byte in a host name made its XML ill-formed.
#include <doctest/doctest.h>

#include "vp/base/xml.hpp"

TEST_CASE("escape_xml: markup escaped, valid text kept") {
  CHECK(vp::escape_xml("a<b>&\"'") == "a&lt;b&gt;&amp;&quot;&apos;");
  CHECK(vp::escape_xml("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  CHECK(vp::escape_xml("tab\tnl\ncr\r") == "tab\tnl\ncr\r");
  CHECK(vp::escape_xml("") == "");
}

TEST_CASE("escape_xml: what XML 1.0 forbids becomes U+FFFD") {
  CHECK(vp::escape_xml("x\x01y") == "x\xEF\xBF\xBDy");                                    // a control
  CHECK(vp::escape_xml(std::string_view("a\0b", 3)) == "a\xEF\xBF\xBD" "b");              // NUL
  CHECK(vp::escape_xml("\xff\xc3") == "\xEF\xBF\xBD\xEF\xBF\xBD");                        // invalid UTF-8, per byte
  CHECK(vp::escape_xml("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");        // a surrogate
  // Valid UTF-8 (vpcat/utf8.hpp) but not XML characters: one U+FFFD each.
  CHECK(vp::escape_xml("a\xEF\xBF\xBE" "b") == "a\xEF\xBF\xBD" "b");                      // U+FFFE
  CHECK(vp::escape_xml("a\xEF\xBF\xBF" "b") == "a\xEF\xBF\xBD" "b");                      // U+FFFF
  CHECK(vp::escape_xml("\xEF\xBF\xBD") == "\xEF\xBF\xBD");                                // U+FFFD itself
  CHECK(vp::escape_xml("\xF4\x8F\xBF\xBF") == "\xF4\x8F\xBF\xBF");                        // U+10FFFF is one
}
