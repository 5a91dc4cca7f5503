// What differs between two catalogs, in the catalog's terms (topology,
// symmetry, orbits, patterns, cluster, provenance), never in bytes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog {

struct DiffOptions {
  bool ignore_tool_version = false;  // provenance.tool_version (validate --against re-runs a newer tool)
  std::size_t max_items = 20;        // listed differences per topic, then "... and N more"
};

// One line per difference, in a fixed order: node types (matched by name;
// components and links by id, routes by endpoints, patterns as sets), node
// groups, fabric, cluster group order, defaults (by key), provenance.
// Empty when the catalogs are equal (under the options). Lines read
// "node type \"x\": component 5 (gpu0): pci_bus_id \"a\" -> \"b\"".
std::vector<std::string> diff_catalogs(const Catalog& a, const Catalog& b, const DiffOptions& options = {});

}  // namespace vp::catalog
