#include "vp/cli/catalog_file.hpp"

#include <algorithm>
#include <cctype>

#include "vp/base/input_file.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"

namespace vp::cli {

void open_catalog_file(const std::string& path, vpcat::CatalogFile& out) {
  const vpcat::Status s = vpcat::CatalogFile::open(path.c_str(), &out);
  if (s.ok()) return;
  // The reader names the path in I/O errors and not in format errors.
  const std::string m = s.message();
  throw catalog::status_error(s, m.rfind(path + ": ", 0) == 0 ? std::string() : path);
}

LoadedCatalog load_catalog(const std::string& path) {
  LoadedCatalog l;
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
    l.catalog = reading_input(path, [&] { return catalog::parse_json_catalog(std::string(l.bytes.begin(), l.bytes.end()), path); });
    // A mirror holds the same catalog: it obeys the same format rules, which
    // the writer verifies (so no tool reads a mirror that its .vpcat would fail).
    try {
      catalog::write_catalog(l.catalog);
    } catch (const catalog::CatalogError& e) {
      throw catalog::CatalogError(catalog::CatalogError::Kind::invalid, path + ": " + e.what(), e.code());
    }
  }
  return l;
}

}  // namespace vp::cli
