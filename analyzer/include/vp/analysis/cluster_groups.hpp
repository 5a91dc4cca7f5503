// The cluster-level part of a catalog, from the nodes and the fabric alone:
// node groups, the fabric's group acting on nodes and the order of the
// cluster's automorphism group (docs/design.md §4). build_catalog() computes
// them after analysing the node types; resize_catalog() (resize.hpp) from a
// catalog's node types, without analysing any.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vp/analysis/perm_group.hpp"
#include "vp/catalog/catalog.hpp"
#include "vp/topology/topology.hpp"

namespace vp {

// Node groups: maximal runs of consecutive nodes of one type (`type_names`
// in node-type order), their names joined by ",".
std::vector<catalog::NodeGroup> node_groups(const std::vector<NodeInfo>& nodes,
                                            const std::vector<std::string>& type_names);

// The fabric's group acting on nodes: permutations of nodes of one type that
// the fabric cannot tell apart (all of them on one switch or on rails; within
// a leaf, and whole leaves of equal make-up, on leaf/spine). Its description
// and order.
std::pair<std::string, BigUint> fabric_group(const std::vector<NodeInfo>& nodes, const FabricInfo& fabric);

// What cluster_order() needs of a node type: its automorphism group.
struct NodeTypeGroup {
  std::string name;
  std::size_t components = 0;              // the degree of the generators
  const std::vector<Permutation>* generators = nullptr;
  BigUint order;
  std::vector<std::uint32_t> nics;         // the NICs' component ids, by local index
};

// |Aut(cluster)| = |fabric group| x the node types' contribution (`types`
// in node-type order, named as the nodes name them).
BigUint cluster_order(const std::vector<NodeInfo>& nodes, FabricKind fabric, const std::vector<NodeTypeGroup>& types,
                      const BigUint& fabric_order);

}  // namespace vp
