// The JSON mirror of a catalog (schemas/catalog.schema.json): the same
// information as the binary, in a form people read and diff. For a file this
// library wrote, binary -> JSON -> binary is byte-identical (the binary is a
// function of the Catalog, and the mirror holds the whole Catalog).
//
// Layout: {"format": "vpcat-json", "format_version": "1.0", "node_types",
// "node_groups", "fabric", "cluster_group_order", "defaults", "provenance"}.
// Ids are array indexes; components and links carry theirs as "id" for the
// reader's eyes (checked on input). Pattern roles are null (idle), a local
// GPU index, or "nicK"; generators are in cycle notation over local
// component ids ("(4 5)(6 7)").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog {

using Json = nlohmann::ordered_json;

Json to_json(const Catalog& c);

// Throws CatalogError(invalid) "ORIGIN: PATH: what" naming the first problem
// (unknown or missing key, wrong type, out-of-range value, "id" not equal
// to its index). Format rules beyond the document's shape are the writer's
// to check (write_catalog verifies).
Catalog from_json(const Json& j, const std::string& origin = "");

// Parse JSON text (vp/base/json_document.hpp): a syntax error is
// CatalogError(unreadable) "ORIGIN:LINE:COL: malformed JSON (...)", a shape
// error CatalogError(invalid) "ORIGIN:LINE:COL: PATH: what"; both followed by
// the offending line and a caret.
Catalog parse_json_catalog(const std::string& text, const std::string& origin = "");

// to_json(c).dump(2) and a final newline.
std::string dump_json(const Catalog& c);

}  // namespace vp::catalog
