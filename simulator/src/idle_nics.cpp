#include "idle_nics.hpp"

#include <cstdint>

namespace vp::sim::detail {

std::vector<char> idle_nics(const Topology& t) {
  std::vector<char> rdma(t.nodes.size(), 0);
  for (ComponentId nic : t.nics)
    if (t.components[nic].gpudirect) rdma[static_cast<std::size_t>(t.components[nic].node)] = 1;
  std::vector<char> idle(t.components.size(), 0);
  for (ComponentId nic : t.nics)
    if (rdma[static_cast<std::size_t>(t.components[nic].node)] && !t.components[nic].gpudirect) idle[nic] = 1;
  return idle;
}

}  // namespace vp::sim::detail
