// Reading a catalog given on the command line, binary or JSON mirror (told
// apart by content: the .vpcat signature, or JSON text).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog_cli {

struct Loaded {
  catalog::Catalog catalog;
  std::vector<std::uint8_t> bytes;  // the file as read
  bool binary = true;               // false: a JSON mirror
};

// Throws catalog::CatalogError naming the file.
Loaded load_catalog(const std::string& path);

}  // namespace vp::catalog_cli
