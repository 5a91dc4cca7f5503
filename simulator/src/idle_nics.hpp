// NICs that carry no GPU traffic, for the bounds. Internal.
#pragma once

#include <vector>

#include "vp/topology/topology.hpp"

namespace vp::sim::detail {

// Per component, 1 for a NIC that carries no GPU traffic: one without
// GPUDirect RDMA in a node that has a NIC with it (the schedulers' and the
// catalog's rule: baseline_common.cpp's nearest NIC, nic_port_gbps in the
// analyzer). A node with no GPUDirect NIC sends through all of its NICs.
std::vector<char> idle_nics(const Topology& t);

}  // namespace vp::sim::detail
