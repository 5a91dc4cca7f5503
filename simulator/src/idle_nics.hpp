// What the two bounds (lower_bound.cpp, flow_bound.cpp) leave out: NICs
// that carry no GPU traffic, and the forwarding capacity of GPUs. Internal.
#pragma once

#include <vector>

#include "vp/topology/topology.hpp"

namespace vp::sim::detail {

// Per component, 1 for a NIC that carries no GPU traffic: one without
// GPUDirect RDMA in a node that has a NIC with it (the schedulers' and the
// catalog's rule: baseline_common.cpp's nearest NIC, nic_port_gbps in the
// analyzer). A node with no GPUDirect NIC sends through all of its NICs.
std::vector<char> idle_nics(const Topology& t);

// Whether the bounds count c's forwarding capacity: every forwarder but a
// GPU. A byte a GPU relays is two transfers with the GPU at an end, and the
// simulator charges forwarding only inside one transfer's route, so a
// GPU's forwarding capacity holds no schedule back.
inline bool bounded_forwarder(const Component& c) { return c.forward && c.kind != ComponentKind::gpu; }

}  // namespace vp::sim::detail
