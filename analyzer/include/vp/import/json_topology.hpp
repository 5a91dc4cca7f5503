// Our JSON topology document (schemas/topology.schema.json): the normalized
// form printed by `vp-analyze topology --json` and read back by import_json()
// to the identical Topology.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "vp/topology/topology.hpp"

namespace vp {

// The output-only path-type matrices are written when they have at most
// kMaxPathTypeCells cells, omitted beyond (between nodes every path is NET):
// "path_types" (GPU x GPU, GPUs^2 cells: for at most kMaxPathTypeGpus GPUs)
// and "nic_path_types" (GPU x NIC, GPUs x NICs cells).
inline constexpr std::size_t kMaxPathTypeGpus = 1024;
inline constexpr std::size_t kMaxPathTypeCells = kMaxPathTypeGpus * kMaxPathTypeGpus;  // 1,048,576

// The whole topology as a JSON document (keys in a stable order).
nlohmann::ordered_json topology_to_json(const Topology& t);

}  // namespace vp
