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
// reads from the sender's memory and writes to the receiver's). The
// streaming inside the kernel is not modelled (a fluid transfer is already
// a perfect pipeline).
//
// Where the authors' code would not run, deepep_pcie_hypothetical() says
// why and the schedule is still built (a report marks it hypothetical and
// leaves it out of its means):
//  * more than 32 ranks (README_PCIe.md: "supports communication with up to
//    32 ranks"; the kernels' rank switch has fixed cases);
//  * a GPU's RDMA NIC is known not to support IBGDA. The mode runs on
//    NVSHMEM's IBGDA transport, which drives mlx5 devices (NVIDIA/Mellanox
//    ConnectX, BlueField) only; DeepEP issue 369 (AWS EFA) and the
//    hybrid-ep select_net() trap on a machine without mlx5 NICs (NVIDIA-
//    NeMo/Megatron-Bridge issue 3343). Rule: a NIC supports IBGDA when its
//    PCI vendor is 0x15b3 (Mellanox), or, with no PCI vendor recorded, its
//    model names ConnectX, BlueField or Mellanox; it is known not to when a
//    PCI vendor other than 0x15b3 is recorded or its model names EFA (AWS
//    fixtures: "EFA", vendor 0x1d0f); a NIC with neither (synthetic
//    topologies) is given the benefit of the doubt;
//  * two GPUs of a node send through one NIC: the mode is stated and
//    measured with "one GPU one NIC" (README_PCIe.md, H20 with 8 CX7).
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/topology/routes.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

constexpr std::size_t kNoGpu = static_cast<std::size_t>(-1);

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
  if (!seen[to]) throw InternalError("deepep_pcie_schedule: no fabric path between two NICs");
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

// No (false) when the NIC is known not to be an mlx5 device; see the header.
bool may_run_ibgda(const Component& nic) {
  if (nic.pci_vendor != 0) return nic.pci_vendor == 0x15b3;
  auto names = [&](const char* word) { return nic.model.find(word) != std::string::npos; };
  if (names("ConnectX") || names("BlueField") || names("Mellanox")) return true;
  return !names("EFA");
}

}  // namespace

std::string deepep_pcie_hypothetical(const Topology& t) {
  constexpr std::size_t kMaxRanks = 32;
  if (t.gpus.size() > kMaxRanks)
    return fmt::format("{} ranks: DeepEP's PCIe mode runs up to {} (docs/README_PCIe.md)", t.gpus.size(), kMaxRanks);
  detail::FlowMaker make(t);
  std::vector<std::size_t> users(t.components.size(), kNoGpu);
  for (std::size_t g = 0; g < t.gpus.size(); ++g) {
    const ComponentId nic = make.nic(g);
    if (nic == kNone) continue;  // deepep_pcie_schedule() says NoNic where it matters
    const Component& n = t.components[nic];
    if (!may_run_ibgda(n))
      return fmt::format("{} ({}) has no IBGDA, which DeepEP's PCIe mode needs (NVSHMEM IBGDA drives mlx5 NICs only)",
                         t.display_name(nic), n.model.empty() ? "unknown model" : n.model);
    if (users[nic] != kNoGpu)
      return fmt::format("{} and {} share {}: DeepEP's PCIe mode runs with one NIC per GPU",
                         t.display_name(t.gpus[users[nic]]), t.display_name(t.gpus[g]), t.display_name(nic));
    users[nic] = g;
  }
  return "";
}

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
