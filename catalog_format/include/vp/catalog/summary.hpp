// The catalog summary that `vp-analyze` prints after an analysis and
// `vp-catalog inspect` prints for a file: one definition, so both print the
// same numbers under the same JSON keys.
//
// Definitions: gpu_orbits = distinct orbits of the node type's GPUs under
// Aut(node type); local_pattern_orbits = stored pattern representatives;
// local_patterns = the patterns they represent; channel_orbits and
// channels_represented = the sums of those two over the node types (a
// catalog stores local patterns; whole-cluster channels are composed at run
// time, docs/design.md §3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"
#include "vp/catalog/json_mirror.hpp"

namespace vp::catalog {

struct NodeTypeSummary {
  std::string name;
  std::uint64_t gpus = 0;
  std::string automorphism_group_order;  // decimal
  std::uint64_t gpu_orbits = 0;
  std::uint64_t local_pattern_orbits = 0;
  std::string local_patterns;            // decimal
};

struct Summary {
  std::uint64_t gpus = 0;   // in the cluster
  std::uint64_t nodes = 0;
  std::vector<NodeTypeSummary> node_types;
  std::string cluster_automorphism_group_order;  // decimal
  std::uint64_t channel_orbits = 0;
  std::string channels_represented;              // decimal
  std::uint64_t catalog_bytes = 0;
};

Summary summarize(const Catalog& c, std::uint64_t catalog_bytes);

// {"gpus", "nodes", "node_types": [{"name", "gpus", "automorphism_group_order",
// "gpu_orbits", "local_pattern_orbits", "local_patterns"}],
// "cluster_automorphism_group_order", "channel_orbits",
// "channels_represented", "catalog_bytes"}: the keys of `vp-analyze
// --summary json` in its order, without the analyzer-only "elapsed_ms".
Json to_json(const Summary& s);

// A decimal integer as a person reads it: as is up to 24 digits, else
// "3.64e13019 (13020 digits)" (an S_4096 fabric group has 13,020 digits).
// Text summaries print this; JSON keeps every digit.
std::string readable_decimal(const std::string& decimal);

// Sum of two non-negative decimal integers given as text.
std::string add_decimal(const std::string& a, const std::string& b);

}  // namespace vp::catalog
