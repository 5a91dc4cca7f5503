// .vpcat bytes -> Catalog. Built on the runtime's verifier and view
// (vpcat/catalog_view.hpp): the bytes are verified once, then copied out
// through the view; there is no second parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"
#include "vpcat/catalog_view.hpp"

namespace vp::catalog {

// Throws CatalogError (with the verifier's code and message) when the bytes
// are not a valid catalog.
Catalog read_catalog(const std::uint8_t* data, std::size_t size,
                     const vpcat::VerifyOptions& options = vpcat::VerifyOptions());
Catalog read_catalog(const std::vector<std::uint8_t>& bytes,
                     const vpcat::VerifyOptions& options = vpcat::VerifyOptions());

// Copy a verified view into a Catalog.
Catalog to_catalog(const vpcat::CatalogView& view);

// Read a whole file into memory. Throws CatalogError(unreadable) "PATH:
// cannot read the file (reason)".
std::vector<std::uint8_t> read_file_bytes(const std::string& path);

// read_file_bytes() + read_catalog(); messages start with the path.
Catalog read_catalog_file(const std::string& path, const vpcat::VerifyOptions& options = vpcat::VerifyOptions());

}  // namespace vp::catalog
