// vpcat/utf8.hpp, the one UTF-8 decoder. The renderer's copy refused U+FFFE
// and U+FFFF, the runtime's took them: RFC 3629 excludes only surrogates and
// what lies above U+10FFFF, and Unicode calls the noncharacters scalar values
// a string may hold, so they are valid UTF-8 (a catalog may carry them). XML
// 1.0 forbids them as characters: vp::escape_xml replaces them
// (base_xml_test.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "vpcat/utf8.hpp"

namespace {

const std::uint8_t* bytes(const std::string& s) { return reinterpret_cast<const std::uint8_t*>(s.data()); }
std::size_t invalid_at(const std::string& s) { return vpcat::utf8_invalid_at(bytes(s), s.size()); }
std::size_t length(const std::string& s, char32_t* cp = nullptr) { return vpcat::utf8_sequence(bytes(s), s.size(), cp); }

}  // namespace

TEST_CASE("utf8: sequences of 1 to 4 bytes and their code points") {
  char32_t cp = 0;
  CHECK(length("A", &cp) == 1);
  CHECK(cp == U'A');
  CHECK(length("\xC3\xA9", &cp) == 2);
  CHECK(cp == 0xE9);
  CHECK(length("\xE2\x82\xAC", &cp) == 3);
  CHECK(cp == 0x20AC);
  CHECK(length("\xF0\x9F\x98\x80", &cp) == 4);
  CHECK(cp == 0x1F600);
  CHECK(length("\xF4\x8F\xBF\xBF", &cp) == 4);
  CHECK(cp == 0x10FFFF);
  CHECK(length("") == 0);
}

TEST_CASE("utf8: U+FFFE and U+FFFF are valid UTF-8 (the renderer's copy refused them)") {
  char32_t cp = 0;
  CHECK(length("\xEF\xBF\xBE", &cp) == 3);
  CHECK(cp == 0xFFFE);
  CHECK(length("\xEF\xBF\xBF", &cp) == 3);
  CHECK(cp == 0xFFFF);
  CHECK(invalid_at("a\xEF\xBF\xBE" "b\xEF\xBF\xBF") == 8);
  CHECK(length("\xEF\xB7\x90", &cp) == 3);  // U+FDD0, another noncharacter
}

TEST_CASE("utf8: overlong forms, surrogates, values above U+10FFFF and truncations are not") {
  CHECK(length("\xC0\xAF") == 0);           // overlong '/'
  CHECK(length("\xC1\xBF") == 0);
  CHECK(length("\xE0\x9F\xBF") == 0);       // overlong 3-byte
  CHECK(length("\xF0\x8F\xBF\xBF") == 0);   // overlong 4-byte
  CHECK(length("\xED\xA0\x80") == 0);       // U+D800
  CHECK(length("\xED\xBF\xBF") == 0);       // U+DFFF
  CHECK(length("\xF4\x90\x80\x80") == 0);   // U+110000
  CHECK(length("\xF5\x80\x80\x80") == 0);
  CHECK(length("\x80") == 0);               // a lone continuation byte
  CHECK(length("\xE2\x82") == 0);           // truncated
  CHECK(length("\xE2\x28\xA1") == 0);       // a bad continuation byte
  CHECK(invalid_at("ok \xE2\x82") == 3);
  CHECK(invalid_at("ok") == 2);
}
