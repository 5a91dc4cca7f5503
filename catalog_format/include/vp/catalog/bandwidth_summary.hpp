// What an operator checks about a node type, in GB/s per direction: how fast
// each GPU's own PCIe link is, and how much network the node has, in all and
// per GPU (what bounds a large AlltoAll across nodes). `vp-analyze` and
// `vp-catalog inspect` print it in their summaries (docs/analysis.md).
#pragma once

#include <cstdint>
#include <string>

#include "vp/catalog/catalog.hpp"

namespace vp::catalog {

struct NodeTypeBandwidth {
  std::uint64_t gpus = 0, nics = 0;
  double gpu_link_min_gbps = 0, gpu_link_max_gbps = 0;  // a GPU's link to its parent (0: none)
  // The sum over the NICs of their network port (Component::nic_gbps) or
  // their PCIe link, whichever is slower: what can leave the node.
  double network_gbps = 0;
};

NodeTypeBandwidth bandwidth_of(const NodeType& t);

// "GPU links 24 GB/s, network 96 GB/s (4 NICs, 12 GB/s per GPU)"; a range
// "16-32 GB/s" when the GPUs' links differ; "no NICs" without a network.
std::string bandwidth_text(const NodeTypeBandwidth& b);

}  // namespace vp::catalog
