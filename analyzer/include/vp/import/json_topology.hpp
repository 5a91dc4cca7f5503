// Our JSON topology document (schemas/topology.schema.json): the normalized
// form printed by `vp-analyze topology --json` and read back by import_json()
// to the identical Topology.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "vp/topology/topology.hpp"

namespace vp {

// The output-only "path_types" matrix has GPUs^2 cells: written for at most
// this many GPUs (1,048,576 cells), omitted beyond (between nodes every
// path is NET).
inline constexpr std::size_t kMaxPathTypeGpus = 1024;

// The whole topology as a JSON document (keys in a stable order).
nlohmann::ordered_json topology_to_json(const Topology& t);

}  // namespace vp
