// Opening a catalog named on the command line, the one way every tool does.
// "-" is standard input (read within the input limits, vp/base/input_file.hpp,
// and named "standard input"); a file is recorded as an input of the run (no
// output may replace it: vp/base/inputs_read.hpp). Every failure is a
// catalog::CatalogError whose message starts with the path: unreadable (exit
// 2) when the file cannot be read, invalid (exit 3) when it is read but
// breaks a format rule.
//
// Each first completes an interrupted write of the file (catalog::
// complete_interrupted_write: a writer killed between the renames of a
// catalog and its mirror), so no tool reads half of a pair; when that cannot
// be done (a read-only folder) it fails, unreadable, naming the journal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"
#include "vpcat/mapped_file.hpp"

namespace vp::cli {

// Map and verify the .vpcat file `path` into `out` (which must stay in place
// while views taken from it are in use).
void open_catalog_file(const std::string& path, vpcat::CatalogFile& out);

// The bytes of the catalog `path`, unverified (what inspect and dump show).
std::vector<std::uint8_t> read_catalog_bytes(const std::string& path);

// A catalog read into memory, binary or JSON mirror (told apart by content:
// the .vpcat signature, or JSON text). A mirror is held to the binary's
// format rules (the verifier's, through write_catalog()).
struct LoadedCatalog {
  catalog::Catalog catalog;
  std::vector<std::uint8_t> bytes;  // the file as read
  bool binary = true;               // false: a JSON mirror
};
LoadedCatalog load_catalog(const std::string& path);

}  // namespace vp::cli
