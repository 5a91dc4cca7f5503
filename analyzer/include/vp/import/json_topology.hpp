// Our JSON topology document (schemas/topology.schema.json): the normalized
// form printed by `vp-analyze topology --json` and read back by import_json()
// to the identical Topology.
#pragma once

#include <nlohmann/json.hpp>

#include "vp/topology/topology.hpp"

namespace vp {

// The whole topology as a JSON document (keys in a stable order).
nlohmann::ordered_json topology_to_json(const Topology& t);

}  // namespace vp
