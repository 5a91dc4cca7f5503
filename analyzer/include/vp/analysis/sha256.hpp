// SHA-256 (FIPS 180-4), for the catalog's input digest.
#pragma once

#include <string>
#include <string_view>

namespace vp {

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace vp
