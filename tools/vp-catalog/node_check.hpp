// `vp-catalog validate --probe`: one node's topology (probed, or read from a
// file) against a node type of the catalog, each difference in the words an
// operator uses after a hardware change (a GPU missing, a link at x8 instead
// of x16, a NIC under another switch).
//
// Components are paired by kind and PCI bus id; those without a bus id on
// either side (CPU sockets, a format that records none) by their order among
// their kind. A paired component is then compared on its model, its place in
// the PCIe tree (its parent), the capacity of its link to the parent, its
// forwarding capacity (root complexes, sockets) and, for a NIC, GPUDirect
// RDMA. NIC port rates are not compared: a cluster description may set the
// fabric's rate for every NIC, and the catalog keeps only the result.
#pragma once

#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"
#include "vp/topology/topology.hpp"

namespace vp::catalog_cli {

// The differences between `node` (a single-node Topology, canonical, with
// the capacity table the catalog was built with) and node type `type`, one
// sentence each, the catalog's side first; empty when they match.
std::vector<std::string> node_differences(const catalog::NodeType& type, const Topology& node);

}  // namespace vp::catalog_cli
