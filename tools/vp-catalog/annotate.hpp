// An annotated hex dump of a .vpcat file (like `flatc --annotate`): every
// byte, grouped by the SPEC.md field it belongs to, with the field's name
// and its decoded value. Works on damaged files too: it reads nothing
// outside the buffer, walks only what lies inside it, resolves string
// indexes only when the whole file verifies, and starts with the
// verifier's verdict, so a dump shows where a bad byte sits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vp::catalog_cli {

std::string annotate(const std::uint8_t* data, std::size_t size);

}  // namespace vp::catalog_cli
