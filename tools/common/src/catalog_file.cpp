#include "vp/cli/catalog_file.hpp"

#include <algorithm>
#include <cctype>

#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/base/inputs_read.hpp"
#include "vp/catalog/atomic_file.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"

namespace vp::cli {

void open_catalog_file(const std::string& path, vpcat::CatalogFile& out) {
  vpcat::Status s;
  if (path == "-") {  // read within the input limits, then verified in memory
    const std::string bytes = read_input_file(path);
    s = vpcat::CatalogFile::open_copy(bytes.data(), bytes.size(), "standard input", &out);
  } else {
    catalog::complete_interrupted_write(path);
    s = vpcat::CatalogFile::open(path.c_str(), &out);
    note_input_read(path);
  }
  if (s.ok()) return;
  // The reader names the path in I/O errors and not in format errors.
  const std::string name = input_name(path);
  const std::string m = s.message();
  throw catalog::status_error(s, m.rfind(name + ": ", 0) == 0 ? std::string() : name);
}

std::vector<std::uint8_t> read_catalog_bytes(const std::string& path) {
  if (path == "-") {
    const std::string bytes = read_input_file(path);
    return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
  }
  catalog::complete_interrupted_write(path);
  std::vector<std::uint8_t> bytes = catalog::read_file_bytes(path);
  note_input_read(path);
  return bytes;
}

LoadedCatalog load_catalog(const std::string& path) {
  LoadedCatalog l;
  l.bytes = read_catalog_bytes(path);
  const std::string name = printable_line(input_name(path));
  const auto first = std::find_if(l.bytes.begin(), l.bytes.end(), [](std::uint8_t c) { return !std::isspace(c); });
  l.binary = first == l.bytes.end() || *first != '{';
  if (l.binary) {
    try {
      l.catalog = catalog::read_catalog(l.bytes);
    } catch (const catalog::CatalogError& e) {
      throw catalog::CatalogError(e.kind(), name + ": " + e.what(), e.code());
    }
  } else {
    l.catalog = reading_input(path, [&] {
      return catalog::parse_json_catalog(std::string(l.bytes.begin(), l.bytes.end()), input_name(path));
    });
    // A mirror holds the same catalog: it obeys the same format rules, which
    // the writer verifies (so no tool reads a mirror that its .vpcat would fail).
    try {
      catalog::write_catalog(l.catalog);
    } catch (const catalog::CatalogError& e) {
      throw catalog::CatalogError(catalog::CatalogError::Kind::invalid, name + ": " + e.what(), e.code());
    }
  }
  return l;
}

}  // namespace vp::cli
