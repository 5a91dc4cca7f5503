#include "vp/catalog/bandwidth_summary.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vp::catalog {

NodeTypeBandwidth bandwidth_of(const NodeType& t) {
  NodeTypeBandwidth b;
  bool any_link = false;
  for (std::uint32_t c = 0; c < t.components.size(); ++c) {
    const Component& comp = t.components[c];
    if (comp.kind == Kind::nic) {  // its port, or its PCIe link when that is slower
      ++b.nics;
      double gbps = comp.nic_gbps;
      for (const Link& l : t.links)
        if (l.src == c && l.dst == comp.parent && l.kind == LinkKind::pcie) gbps = std::min(gbps, l.capacity_gbps);
      b.network_gbps += gbps;
    }
    if (comp.kind != Kind::gpu) continue;
    ++b.gpus;
    for (const Link& l : t.links) {
      if (l.src != c || l.dst != comp.parent || l.kind != LinkKind::pcie) continue;
      b.gpu_link_min_gbps = any_link ? std::min(b.gpu_link_min_gbps, l.capacity_gbps) : l.capacity_gbps;
      b.gpu_link_max_gbps = std::max(b.gpu_link_max_gbps, l.capacity_gbps);
      any_link = true;
    }
  }
  return b;
}

std::string bandwidth_text(const NodeTypeBandwidth& b) {
  std::string s = b.gpu_link_min_gbps == b.gpu_link_max_gbps
                      ? fmt::format("GPU links {:g} GB/s", b.gpu_link_max_gbps)
                      : fmt::format("GPU links {:g}-{:g} GB/s", b.gpu_link_min_gbps, b.gpu_link_max_gbps);
  if (b.nics == 0) return s + ", no NICs";
  s += fmt::format(", network {:g} GB/s ({} NIC{}", b.network_gbps, b.nics, b.nics == 1 ? "" : "s");
  if (b.gpus > 0) s += fmt::format(", {:.3g} GB/s per GPU", b.network_gbps / static_cast<double>(b.gpus));
  return s + ")";
}

}  // namespace vp::catalog
