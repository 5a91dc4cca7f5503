// The route bound: the lower bound restricted to the direct, default-route
// schedules (docs/simulator.md "Route bound").
//
// Which schedules it bounds. A schedule that moves every byte of the demand
// exactly once, in a single hop origin -> final, on the simulator's default
// route for that pair (detail::FlowMaker: the PCIe route inside a node; across
// nodes, each side's nearest NIC with GPUDirect RDMA, else its nearest NIC),
// in any number of steps of any shape: the `fanout`, `nccl` and `spreadout`
// baselines. Every resource the simulator charges -- each directed link of a
// route, and each component with a forwarding capacity the route transits
// (simulate.cpp's StepBuilder charges them listed among the route's
// forwarders or not; routes.cpp lists every one) -- must carry the bytes of
// every pair whose route uses it, at most at its capacity, so such a
// schedule takes at least
//     max over resources of load / capacity  (+ one start-up latency)
// under the ideal model, and under the contention model (which only lowers
// rates, never raises them).
//
// Which it does not bound. Any schedule that forwards through another GPU or
// uses another route: FAST-like and DeepEP NVLink-style (relays inside a
// node), DeepEP PCIe mode (every byte through the sender's and receiver's
// NICs, intra-node included, and the NIC loop-back without a fabric), and
// VarioPath (other NICs, relays, the planner's own routes). For those only
// lower_bound() holds.
//
// It is never below lower_bound() on the same demand (a theorem for direct
// routes, tested on every fixture platform): the links leaving a cut set
// carry every byte that leaves it, so the largest load / capacity among
// them is at least the cut's bytes / capacity; a forwarder that separates
// two GPUs lies on their route; a node's NICs carry all its inter-node
// bytes through both their PCIe and network links.
#pragma once

#include "vp/sim/demand.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

// The bound and the attaining resource, as a Cut: `name` is a directed link,
// "node0/pcie_switch1 -> node0/host_bridge0 link", or a forwarding
// component, "node0/cpu0 forwarding" (no node prefix in a single-node
// topology; the first in link then component id order on a tie); `bytes`
// the load the default routes put on it, `gbps` its capacity, `time_us`
// their ratio (infinite for a zero capacity). time_us = that + latency_us,
// 0 and an empty name when no byte moves.
//
// Cost: one default route per GPU pair with bytes, O(pairs x route length).
//
// Throws InputError("demand", 0, reason) when the demand does not fit t,
// vp::UsageError on a negative or non-finite latency, NoNic when a pair
// with bytes lies in two nodes and one has no NIC (no direct route exists;
// the direct baselines refuse it the same way).
LowerBound direct_route_bound(const Topology& t, const Demand& demand, const BoundOptions& opts = {});

}  // namespace vp::sim
