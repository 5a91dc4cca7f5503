#include "load.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/reader.hpp"
#include "vpcat/format.hpp"

namespace vp::catalog_cli {

Loaded load_catalog(const std::string& path) {
  Loaded l;
  l.bytes = catalog::read_file_bytes(path);
  const auto first = std::find_if(l.bytes.begin(), l.bytes.end(), [](std::uint8_t c) { return !std::isspace(c); });
  l.binary = first == l.bytes.end() || *first != '{';
  if (l.binary) {
    try {
      l.catalog = catalog::read_catalog(l.bytes);
    } catch (const catalog::CatalogError& e) {
      throw catalog::CatalogError(e.kind(), path + ": " + e.what(), e.code());
    }
  } else {
    l.catalog = catalog::parse_json_catalog(std::string(l.bytes.begin(), l.bytes.end()), path);
  }
  return l;
}

}  // namespace vp::catalog_cli
