// Reading a cluster description (JSON, schemas/cluster.schema.json) into a
// ClusterSpec: the node types' topology files are imported, the host lists
// expanded, and the whole checked as expand_cluster() needs it
// (vp/topology/cluster.hpp holds the model and the expansion).
#pragma once

#include <functional>
#include <string>

#include "vp/import/import.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/topology.hpp"

namespace vp {

// Load a cluster description. Node types that give no "input" use
// `default_node_type` (the topology of --input); an "input" path is relative
// to the description's folder.
ClusterSpec load_cluster_spec(const std::string& path, const Topology* default_node_type,
                              const ImportOptions& opts);
// The same, with the --input topology produced on demand: called only for a
// node type that gives no "input" (so that a description whose node types all
// name their files needs no --input and no probe of this machine); it may
// return nullptr when there is none.
using DefaultNodeType = std::function<const Topology*()>;
ClusterSpec load_cluster_spec(const std::string& path, const DefaultNodeType& default_node_type,
                              const ImportOptions& opts);

}  // namespace vp
