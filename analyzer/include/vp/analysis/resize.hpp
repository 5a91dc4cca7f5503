// Growth and re-composition of a catalog (docs/subsets.md "Growth"): the
// catalog of other nodes of the same node types, on the same fabric kind or
// another, without analysing a node type again. A node type's part of the
// catalog (symmetry, routes, local patterns) does not depend on how many
// nodes there are; what does (node groups, the fabric, its group and the
// cluster's) is composed here as the analysis composes it
// (cluster_groups.hpp, and the fabric as expand_cluster() builds it).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/catalog/catalog.hpp"
#include "vp/topology/topology.hpp"

namespace vp {

struct ResizeRequest {
  // The nodes of the new catalog in cluster order; each type names one of
  // the source's node types.
  std::vector<NodeInfo> nodes;
  // The new fabric; the source's when empty.
  std::optional<FabricInfo> fabric;
};

// The catalog of `request.nodes` on the fabric: the source's node types,
// defaults and import warnings unchanged; node groups, fabric and group
// orders composed anew; provenance tool "vp-catalog resize" with the source's
// input digest and options (less the --nodes shortcut's keys). Throws
// vp::UsageError saying why when the request cannot be met: no nodes, more
// than analysis_limits() allows, a repeated name, an unknown node type, several nodes
// without a fabric, a leaf/spine fabric without a leaf size, a node type
// without a NIC that carries GPU traffic (or with a GPUDirect NIC of unknown
// rate) in a cluster of several nodes, or a fabric whose uplinks depend on a
// rate the catalog does not record (the ports of NICs without GPUDirect
// RDMA, one rate per node type and NIC model, recovered from the source's
// uplinks when they determine the new uplinks to the bit).
// The source is not what vp-analyze writes (its fabric or group orders are
// not what its own nodes give, two node types share a name): ResizeSourceError
// (vp-catalog: an invalid catalog, exit 3).
class ResizeSourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
catalog::Catalog resize_catalog(const catalog::Catalog& source, const ResizeRequest& request);

// The nodes of a catalog, in order, with their node types' names.
std::vector<NodeInfo> catalog_nodes(const catalog::Catalog& c);

}  // namespace vp
