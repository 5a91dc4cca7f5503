// Routes through the topology (docs/design.md §2 "Routes") and NCCL's path-type
// vocabulary.
//
// Intra-node GPU->GPU traffic follows the PCIe tree up to the lowest common
// ancestor; when the endpoints sit under different sockets it crosses the
// inter-socket link(s) (shortest path between the sockets, lowest ids first).
// Inter-node traffic goes GPU -> (PCIe) -> NIC -> fabric -> NIC -> (PCIe) ->
// GPU; the NIC on each side is an explicit choice (nearest_nic() is the
// default). A route lists its directed links and the forwarding components it
// transits (host bridges and CPU sockets between two of their links). Its solo
// rate is the minimum capacity along it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "vp/topology/topology.hpp"

namespace vp {

// Ordered from nearest to farthest, as in NCCL (src/graph/topo.h), without NVLink kinds.
enum class PathType : unsigned char {
  LOC,   // same device
  PIX,   // through at most one PCIe switch
  PXB,   // through several PCIe switches, no host bridge
  PHB,   // through a PCIe host bridge (root complex)
  NODE,  // between host bridges of one socket (NUMA node)
  SYS,   // across the inter-socket link
  NET,   // through the network (different nodes)
};
std::string_view to_string(PathType p);
std::optional<PathType> parse_path_type(std::string_view s);

struct Route {
  std::vector<LinkId> links;             // directed links, in order
  std::vector<ComponentId> forwarders;   // transited components with a forwarding capacity
  double solo_gbps = 0.0;                // min capacity over links and forwarders
  PathType type = PathType::LOC;

  friend bool operator==(const Route&, const Route&) = default;
};

// PCIe/socket path between two components of the same node (any kinds).
// Throws vp::InternalError if they are in different nodes.
Route intra_node_route(const Topology& t, ComponentId src, ComponentId dst);

// Route through explicit NICs and the fabric. src_nic must be in src's
// node, dst_nic in dst's node; the fabric part is the shortest path between
// the NICs' switches (lowest ids first). src and dst may share a node (a NIC
// loopback: two distinct NICs of the node and the fabric between them).
// Throws vp::InternalError on misuse.
Route network_route(const Topology& t, ComponentId src, ComponentId src_nic, ComponentId dst_nic,
                    ComponentId dst);

// The default route GPU->GPU: intra_node_route for the same node, otherwise
// network_route with nearest_nic() on both sides.
Route default_route(const Topology& t, ComponentId src_gpu, ComponentId dst_gpu);

// The NIC with the best path type from `gpu`, ties broken by fewer hops then
// by lower local index; kNone if the node has no NIC.
ComponentId nearest_nic(const Topology& t, ComponentId gpu);

// The path type between two components of one node, from their ancestor
// chains (each the component, its parent, ..., its socket, by id) and
// `kind_of(id)`, a component's kind: LOC for one component; SYS when the
// chains meet nowhere (different sockets); NODE when they meet at a socket,
// PHB at a host bridge; below a PCIe switch, PIX through that switch alone
// and PXB through several. The one classification of a path: path_type()
// and the routes apply it to a Topology, vp-plan --svg to a catalog's node
// type (tools/vp-plan/plan_routes.cpp), so a picture and the analysis agree.
template <typename Id, typename KindOf>
PathType classify_chains(const std::vector<Id>& a, const std::vector<Id>& b, KindOf&& kind_of) {
  if (a.empty() || b.empty() || a.front() == b.front()) return PathType::LOC;
  for (std::size_t up = 0; up < a.size(); ++up) {
    const auto it = std::find(b.begin(), b.end(), a[up]);
    if (it == b.end()) continue;
    const auto down = static_cast<std::size_t>(it - b.begin());
    const ComponentKind k = kind_of(a[up]);
    if (k == ComponentKind::cpu) return PathType::NODE;
    if (k == ComponentKind::host_bridge) return PathType::PHB;
    int switches = 0;
    for (std::size_t i = 0; i <= up; ++i) switches += kind_of(a[i]) == ComponentKind::pcie_switch;
    for (std::size_t i = 0; i < down; ++i) switches += kind_of(b[i]) == ComponentKind::pcie_switch;
    return switches <= 1 ? PathType::PIX : PathType::PXB;
  }
  return PathType::SYS;
}

// Path type between two components of one topology (NET across nodes).
PathType path_type(const Topology& t, ComponentId a, ComponentId b);

// GPU x GPU path-type matrix in global GPU index order.
std::vector<std::vector<PathType>> path_type_matrix(const Topology& t);

// GPU x NIC path-type matrix, as `nvidia-smi topo -m` prints GPU rows against
// NIC columns: row g is global GPU g, column k is t.nics[k] (node, local index
// order). A cell is the type of the route GPU -> NIC, intra_node_route(t, gpu,
// nic).type: the highest crossing on the PCIe path up from the GPU to the
// lowest common ancestor and down to the NIC, which is how NCCL classifies a
// GPU <-> NET path (src/graph/paths.cc: the maximum over the path's hops):
// PIX (the GPU and the NIC below one switch), PXB (several switches, no host
// bridge), PHB (they meet at a host bridge), NODE (at the socket, between two
// of its host bridges; NCCL, which models no host bridge, says PHB there) or
// SYS (across the inter-socket link). NET for a NIC of another node; never
// LOC. GPUs x NICs cells: the caller bounds the size (kMaxPathTypeCells).
std::vector<std::vector<PathType>> nic_path_type_matrix(const Topology& t);

}  // namespace vp
