// The flow bound: the fluid optimum of a demand over every route at once,
// a linear program (max-concurrent multicommodity flow), solved with COIN-OR
// CLP. It shows how tight the cut bound (lower_bound.hpp) is
// (docs/simulator.md "Flow bound").
//
// The program. One commodity per sending GPU s; f[s][l] >= 0 is the bytes
// of s that cross directed link l. At every component v other than s,
// inflow - outflow of s's bytes = D[s][v] (0 for a component that is not a
// GPU): a byte may transit any switch, bridge, socket, NIC, fabric switch or
// GPU (a relay) on its way. Over the whole call, every resource the
// simulator charges carries at most its capacity times T:
//   * each directed link:  sum_s f[s][l]                 <= capacity(l) T
//   * each component x other than a GPU with a forwarding capacity (root
//     complex, socket): the bytes that enter it, all of which transit it,
//                          sum_s sum_{l into x} f[s][l]   <= forward(x) T
// and T is minimised. A GPU's forwarding capacity is not a row: a byte a
// GPU relays is two transfers, and the simulator charges forwarding only
// inside one transfer's route. The links of NICs that carry no GPU traffic
// (no GPUDirect RDMA) count in nothing, as in the cut bound
// (lower_bound.hpp): both bounds hold for schedules that send GPU bytes
// only through the NICs that carry GPU traffic, as every scheduler here does.
//
// Why it is a bound. Any such schedule, of any steps on any routes, relays
// included, moves each byte along some path, and in each step no resource
// carries more than its capacity per unit of time (the ideal model; the
// contention model only lowers rates); so the bytes each resource carries
// over the whole call fit capacity x (the call's time less one start-up
// latency). Summed over the call those bytes are a feasible flow of the
// program. So time >= T + latency under both models.
//
// Against the cut bound. Every cut the cut bound examines is a constraint
// this program implies (the bytes that must cross a set cross its outgoing
// links; those that must transit a forwarder enter it), so T >= the cut
// bound's ratio. On a PCIe tree (one node) the two are equal; across nodes
// the program also charges the hops a byte takes through several resources
// that no single cut sees together.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vp/sim/demand.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

// The program's size limit: n sources x links variables. 64 GPUs of the
// evaluation's nodes are about 30,000 variables, solved in well under a
// second; the limit keeps a mistyped run from asking for hours.
inline constexpr std::size_t kFlowBoundMaxGpus = 64;

struct FlowBoundShare {
  std::string resource;  // "node0/pcie_switch1 -> node0/host_bridge0 link" or "node0/cpu0 forwarding"
  double share = 0.0;    // its dual price x capacity, over the sum of them all
};

struct FlowBound {
  // The program's optimum T plus one start-up latency (0 when no byte must
  // move; +infinity when some pair's bytes have no path).
  double time_us = 0.0;
  // The resources with a positive dual price, largest share first: the
  // program's fractional cut, one optimal dual of the solver's (the shares
  // of all of them sum to 1). Often one cut's links; several unrelated
  // entries mean that no single resource set binds. At most the 8 largest
  // are kept, so the kept shares sum to at most 1.
  std::vector<FlowBoundShare> binding;
  std::size_t variables = 0;    // columns of the program
  std::size_t constraints = 0;  // rows
};

// Throws InputError("demand", 0, reason) when the demand does not fit t,
// vp::UsageError on a negative or non-finite latency or more than
// kFlowBoundMaxGpus GPUs, vp::InternalError when the solver fails (or
// calls the program infeasible where every pair with bytes has a path).
FlowBound flow_bound(const Topology& t, const Demand& demand, const BoundOptions& opts = {});

}  // namespace vp::sim
