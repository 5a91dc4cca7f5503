#include "baseline_common.hpp"

#include "vp/sim/baselines.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <tuple>

namespace vp::sim::detail {

Servers::Servers(const Topology& t, const char* who)
    : members_(t.nodes.size()), server_(t.gpus.size()), local_(t.gpus.size()) {
  for (std::size_t g = 0; g < t.gpus.size(); ++g) {
    auto node = static_cast<std::size_t>(t.components[t.gpus[g]].node);
    server_[g] = node;
    local_[g] = members_[node].size();
    members_[node].push_back(g);
  }
  for (std::size_t n = 0; n < members_.size(); ++n) {
    if (members_[n].size() != members_[0].size())
      throw UnevenNodes(fmt::format("{}: every node needs the same number of GPUs ({} has {}, {} has {})", who,
                                              t.nodes[n].name, members_[n].size(), t.nodes[0].name, members_[0].size()));
  }
}

namespace {

// nearest_nic() among the NICs with GPUDirect RDMA (a communication library
// sends GPU buffers only through RDMA devices: NCCL's net plugins list no
// other), or nearest_nic() when the node has none.
ComponentId nearest_rdma_nic(const Topology& t, ComponentId gpu) {
  const Component& g = t.components[gpu];
  ComponentId best = kNone;
  std::tuple<PathType, std::size_t, std::int32_t> best_key{};
  for (ComponentId nic : t.nics) {
    if (t.components[nic].node != g.node || !t.components[nic].gpudirect) continue;
    const Route r = intra_node_route(t, gpu, nic);
    const std::tuple<PathType, std::size_t, std::int32_t> key{r.type, r.links.size(), t.components[nic].local_index};
    if (best == kNone || key < best_key) best = nic, best_key = key;
  }
  return best != kNone ? best : nearest_nic(t, gpu);
}

}  // namespace

FlowMaker::FlowMaker(const Topology& t) : t_(t) {
  for (ComponentId g : t.gpus) nic_.push_back(nearest_rdma_nic(t, g));
}

const Route& FlowMaker::route(std::size_t src, std::size_t dst) {
  auto [it, fresh] = routes_.try_emplace((std::uint64_t{src} << 32) | dst);
  if (!fresh) return it->second;
  ComponentId s = t_.gpus[src], d = t_.gpus[dst];
  if (t_.components[s].node == t_.components[d].node) {
    it->second = intra_node_route(t_, s, d);
  } else {
    if (nic_[src] == kNone || nic_[dst] == kNone) {
      routes_.erase(it);
      throw NoNic(fmt::format("no NIC to route {} -> {}", t_.display_name(s), t_.display_name(d)));
    }
    it->second = network_route(t_, s, nic_[src], nic_[dst], d);
  }
  return it->second;
}

Flow FlowMaker::hop(std::size_t src, std::size_t dst, std::size_t origin, std::size_t final, double bytes) {
  return Flow{t_.gpus[src], t_.gpus[dst], t_.gpus[origin], t_.gpus[final], bytes, route(src, dst)};
}

}  // namespace vp::sim::detail
