// DeepEP's PCIe mode (github.com/deepseek-ai/DeepEP, docs/README_PCIe.md,
// "1D Communication Design": "All communication (both intra-node and
// inter-node) is routed exclusively through the RDMA NIC", with bounce
// buffers registered to the NIC, no NVLink and no PCIe forwarding between
// GPUs; selected with allow_nvlink_for_normal_mode=False; stated for up to
// 32 ranks, measured on H20 servers with one CX7 per GPU).
//
// Here: every payload s -> d (s != d) is one transfer, all at once, from s
// up its PCIe tree to its nearest RDMA NIC, through the fabric to d's
// nearest RDMA NIC, and down to d -- inside a node too. When s and d share
// a NIC, the NIC loops the payload back (up its PCIe link and down again);
// two NICs of one node reach each other through their fabric switch(es).
// Without a fabric (one node, no switch modelled) the sender's NIC loops
// the payload back to the receiver over PCIe (an RDMA loopback: the NIC
// reads from the sender's memory and writes to the receiver's). The streaming inside the kernel is not
// modelled (a fluid transfer is already a perfect pipeline), and neither is
// the 32-rank limit: larger platforms run it as if it held.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/topology/routes.hpp"

namespace vp::sim {

namespace {

// The network link from a NIC to its fabric switch (kNone without one).
LinkId uplink(const Topology& t, ComponentId nic) {
  for (LinkId l : t.out_links[nic])
    if (t.links[l].kind == LinkKind::network) return l;
  return kNone;
}

// Shortest path of directed links between two fabric switches (fewest hops,
// lowest link ids first).
std::vector<LinkId> across_fabric(const Topology& t, ComponentId from, ComponentId to) {
  std::vector<LinkId> came_by(t.components.size(), kNone);
  std::vector<char> seen(t.components.size(), 0);
  std::deque<ComponentId> queue{from};
  seen[from] = 1;
  while (!queue.empty()) {
    const ComponentId c = queue.front();
    queue.pop_front();
    if (c == to) break;
    for (LinkId l : t.out_links[c]) {
      const ComponentId d = t.links[l].dst;
      if (seen[d] || t.components[d].kind != ComponentKind::net_switch) continue;
      seen[d] = 1;
      came_by[d] = l;
      queue.push_back(d);
    }
  }
  if (!seen[to]) throw std::invalid_argument("deepep_pcie_schedule: no fabric path between two NICs");
  std::vector<LinkId> path;
  for (ComponentId x = to; x != from; x = t.links[came_by[x]].src) path.push_back(came_by[x]);
  return {path.rbegin(), path.rend()};
}

void append(std::vector<LinkId>& to, const std::vector<LinkId>& more) { to.insert(to.end(), more.begin(), more.end()); }

// s -> nic_s (-> fabric -> nic_d) -> d, both GPUs of one node.
Route local_through_nics(const Topology& t, ComponentId s, ComponentId nic_s, ComponentId nic_d, ComponentId d) {
  // nic_d may change (loopback without a fabric).
  Route r;
  r.type = PathType::NET;
  append(r.links, intra_node_route(t, s, nic_s).links);
  if (nic_s != nic_d && (uplink(t, nic_s) == kNone || uplink(t, nic_d) == kNone)) nic_d = nic_s;  // loopback
  if (nic_s != nic_d) {
    const LinkId up = uplink(t, nic_s), down_rev = uplink(t, nic_d);
    const LinkId down = t.links[down_rev].reverse;
    r.links.push_back(up);
    append(r.links, across_fabric(t, t.links[up].dst, t.links[down].src));
    r.links.push_back(down);
  }
  append(r.links, intra_node_route(t, nic_d, d).links);
  double rate = 1e300;
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    rate = std::min(rate, t.links[r.links[i]].capacity.gbps);
    if (i + 1 < r.links.size()) {
      const ComponentId mid = t.links[r.links[i]].dst;
      if (t.components[mid].forward && std::find(r.forwarders.begin(), r.forwarders.end(), mid) == r.forwarders.end()) {
        r.forwarders.push_back(mid);
        rate = std::min(rate, t.components[mid].forward->gbps);
      }
    }
  }
  r.solo_gbps = rate;
  return r;
}

}  // namespace

Schedule deepep_pcie_schedule(const Topology& t, const Demand& demand) {
  demand.check_fits(t, "demand");
  detail::FlowMaker make(t);
  Step step;
  for (std::size_t s = 0; s < demand.size(); ++s) {
    for (std::size_t d = 0; d < demand.size(); ++d) {
      if (s == d || demand.at(s, d) <= 0) continue;
      const ComponentId gs = t.gpus[s], gd = t.gpus[d];
      if (t.components[gs].node != t.components[gd].node) {
        step.flows.push_back(make.direct(s, d, demand.at(s, d)));  // the default route already uses the NICs
        continue;
      }
      const ComponentId ns = make.nic(s), nd = make.nic(d);
      if (ns == kNone || nd == kNone)
        throw NoNic(
            fmt::format("deepep_pcie_schedule: {} has no NIC to send through", t.display_name(ns == kNone ? gs : gd)));
      step.flows.push_back(Flow{gs, gd, gs, gd, demand.at(s, d), local_through_nics(t, gs, ns, nd, gd)});
    }
  }
  Schedule out;
  if (!step.flows.empty()) out.steps.push_back(std::move(step));
  return out;
}

}  // namespace vp::sim
