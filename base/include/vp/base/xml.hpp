// Text into XML, the one escape of the project: the SVG pictures (render/)
// and the SimGrid platform (simulator/) write names with it.
#pragma once

#include <string>
#include <string_view>

namespace vp {

// Text for XML 1.0 character data and attribute values: & < > " ' escaped,
// and what XML forbids replaced by U+FFFD, so the document stays
// well-formed: a byte that starts no valid UTF-8 sequence (one U+FFFD per
// byte; vpcat/utf8.hpp), a control other than tab, newline and carriage
// return, and U+FFFE and U+FFFF (valid UTF-8, but outside XML's Char).
std::string escape_xml(std::string_view s);

}  // namespace vp
