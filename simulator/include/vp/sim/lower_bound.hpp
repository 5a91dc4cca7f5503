// The cut lower bound of docs/design.md §7: no schedule, on any routes, can
// finish a demand faster.
//
// For a set S of components, every byte from a GPU inside S to a GPU
// outside must cross a directed link leaving S, so the time is at least
// bytes(S -> outside) / capacity(links leaving S); likewise for the bytes
// entering S. The sets examined, in this order (the first one attaining the
// maximum is reported):
//   * each GPU:                    "node3/gpu5 up-link", "node3/gpu5 down-link"
//   * each PCIe switch subtree:    "node0/pcie_switch1 subtree out" / "in"
//   * each host bridge subtree:    "node0/host_bridge0 subtree out" / "in"
//   * each socket subtree:         "node0/cpu1 socket out" / "in"
//   * each node of a cluster: its GPUs' bytes to and from other nodes over
//     its NICs that carry GPU traffic, each NIC at the smaller of its PCIe
//     link and its network link:   "node3 NICs out" / "node3 NICs in"
//   * each fabric switch whose nodes attach to it alone (a leaf), with them:
//                                  "leaf2 group out" / "leaf2 group in"
//   * each component other than a GPU with a forwarding capacity (root
//     complex, socket; a GPU relays in two transfers, each ending at it):
//     removed from the whole graph, the GPUs it separates from each other
//     (or from every NIC, and so from the other nodes) exchange bytes that
//     all must transit it, on any route: "node0/cpu0 forwarding"
//   * each fabric switch that nodes reach besides others (a rail), with the
//     subtrees, in every node, of the level-L ancestors of its NICs (L = 1:
//     the NIC's parent, up to the socket): its way out is those subtrees'
//     uplinks, their other NICs, and the switch's spine uplink -- the
//     rail fabric's spine cut:     "rail1 + pcie_switch subtrees out" / "in",
//                                  "rail1 + host_bridge subtrees out", ...
// NICs that carry GPU traffic: those with GPUDirect RDMA, or all of a node
// that has none (what every scheduler here and the catalog use); the links
// of the others count in no cut.
// (in a single-node topology names carry no node prefix). The bound is the
// largest ratio plus one start-up latency (when any byte must move).
#pragma once

#include <string>

#include "vp/sim/demand.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

struct Cut {
  std::string name;     // see above; empty when no byte must move
  double bytes = 0.0;   // bytes that must cross it
  double gbps = 0.0;    // capacity of the directed links crossing it
  double time_us = 0.0; // bytes / capacity (infinite when bytes > 0 and no link crosses)
};

struct BoundOptions {
  double latency_us = 5.0;  // start-up latency, as in SimOptions
};

struct LowerBound {
  double time_us = 0.0;  // cut.time_us + latency_us (0 for an empty demand)
  Cut cut;               // the attaining cut
};

// Throws InputError("demand", 0, reason) when the demand does not fit t,
// vp::UsageError on a negative or non-finite latency.
LowerBound lower_bound(const Topology& t, const Demand& demand, const BoundOptions& opts = {});

}  // namespace vp::sim
