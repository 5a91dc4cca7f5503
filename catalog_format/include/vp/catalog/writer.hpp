// Catalog -> .vpcat bytes (SPEC.md). Deterministic: the bytes depend only on
// the Catalog (no timestamps, padding zeroed, fixed section order and string
// order), so identical catalogs give identical files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog {

// The version of the tool that writes, stored in the header (writer_major,
// writer_minor, writer_patch): the project's version.
struct WriterVersion {
  std::uint16_t major, minor, patch;
};
WriterVersion writer_version();

// Encode `c`. Every file written is verified with the runtime's verifier
// and its default limits (vpcat::VerifyOptions) before it is returned, so
// the writer never emits a file a default reader rejects.
// Throws CatalogError(invalid) naming the first rule the catalog breaks: a
// vector of the wrong size ("node type 0 \"x\": link_orbit has 3 entries for
// 4 links"), a count above 2^32 - 1, or any rule of SPEC.md "Verification"
// (then with the verifier's message and code).
std::vector<std::uint8_t> write_catalog(const Catalog& c);

// write_catalog() into `path` through write_file_atomically().
void write_catalog_file(const Catalog& c, const std::string& path);

}  // namespace vp::catalog
