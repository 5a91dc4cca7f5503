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
  // provenance.tool and input_digest: validate --against compares a catalog
  // `vp-catalog resize` wrote, whose digest is its source's, with an analysis.
  bool ignore_origin = false;
  std::size_t max_items = 20;        // listed differences per topic, then "... and N more"
};

// One line per difference, in a fixed order: node types (matched by name,
// else by content: a type that differs only in its name is one "named ... in
// B" line; components matched by name, links and routes by their endpoints'
// names, patterns as sets), node groups, fabric, cluster group order,
// defaults (by key), provenance.
// Empty when the catalogs are equal (under the options). Lines read
// "node type \"x\": component 5 (gpu0): pci_bus_id \"a\" -> \"b\"".
std::vector<std::string> diff_catalogs(const Catalog& a, const Catalog& b, const DiffOptions& options = {});

// What a difference is about, for a one-line verdict ("the topology and the
// channels differ"):
//  * topology: node types, components and links (but their orbits), routes,
//    node groups, the fabric, the capacity default table, the input digest;
//  * orbits: the symmetry: group orders, generators, component and link
//    orbits, the fabric's group;
//  * channels: the local pattern orbit representatives and their counts;
//  * options: the provenance's tool and recorded analysis options;
//  * names: a node type's name alone (its content is the same).
enum class DiffArea { topology, orbits, channels, options, names };
inline constexpr std::size_t kDiffAreaCount = 5;
const char* to_string(DiffArea area);

// A node type present in only one catalog is one difference that touches
// the topology, the orbits and the channels.
struct DiffReport {
  std::vector<std::string> lines;           // as diff_catalogs (at most max_items per topic, then "... and N more")
  std::size_t differences = 0;              // every difference, listed or not
  std::size_t counts[kDiffAreaCount] = {};  // the differences touching each area
  bool empty() const { return differences == 0; }
  std::size_t total() const { return differences; }
  // "the topology and the orbits", in the enum's order; empty when equal.
  std::string areas_text() const;
  std::size_t area_count() const;
};

DiffReport diff_report(const Catalog& a, const Catalog& b, const DiffOptions& options = {});

}  // namespace vp::catalog
