// Synthetic node types from a compact shape description: for tests, for the
// benchmarks' large clusters, and for operators who want to try a design
// before buying it.
//
// Shape grammar (make_node_from_shape): sockets separated by '|'; in a socket,
// items separated by ','. An item is `gN` (N GPUs on root ports of the
// socket's host bridge), `nN` (N NICs on root ports), or `[...]` a PCIe
// switch containing items (gN, nN, nested [...]). Example, the 8-GPU
// evaluation server: "[g2,n1],[g2,n1]|[g2,n1],[g2,n1]".
#pragma once

#include <string>
#include <string_view>

#include "vp/topology/topology.hpp"

namespace vp {

struct SyntheticOptions {
  int pcie_gen = 4;             // every PCIe link Gen N x16
  double nic_gbitps = 200;      // per NIC, one port
  std::string gpu_model = "PCIe GPU";
  std::string nic_model = "200G NIC";
  std::string cpu_family = "amd";
  std::string node_type = "synthetic";
  CapacityDefaults defaults;
};

// One node built from `shape`; canonicalized. Throws InputError("shape", 0,
// reason) on a malformed shape.
Topology make_node_from_shape(std::string_view shape, const SyntheticOptions& opts);

}  // namespace vp
