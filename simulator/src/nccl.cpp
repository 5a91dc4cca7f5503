// NCCL baseline: an AlltoAllv as grouped ncclSend/ncclRecv, scheduled the
// way NCCL schedules a group of point-to-point operations (NVIDIA/nccl):
//
//  * the round order (src/init.cc, the p2p schedule built at communicator
//    initialisation): in round r a rank sends to the rank at node delta
//    nd(r) and local delta ld(r) from it and receives from the rank at
//    -nd(r), -ld(r); node deltas run in the outer loop and local deltas in
//    the inner one, each enumerated by the quadratic sequence
//    delta += round (mod the next power of two), values past the count
//    skipped (0, 1, 3, 2 for 4). Round 0 is the rank itself. When nodes
//    hold different numbers of GPUs the schedule is flat (one node of all
//    ranks). Every round is a permutation.
//  * bounded concurrency (src/enqueue.cc, scheduleP2pTasksToPlan, and
//    src/graph/paths.cc, ncclTopoComputeP2pChannels): rounds are handed to
//    the p2p channels in order, one operation per channel per round when
//    the ranks outnumber the channels, and a channel's work batch holds at
//    most NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8) operations, run together;
//    batches on a channel run one after the other. So at most
//    peers_in_flight = 8 x p2pnChannels / p2pnChannelsPerPeer rounds are in
//    flight at once. On a PCIe-only server NCCL's channel search yields few
//    channels and as many per peer (NCCL_NCHANNELS_PER_NET_PEER), so the
//    default here is 8 (one batch of rounds at a time); no published
//    measurement states the figure for our platforms, so it is an option.
//
//  * the transport of each pair (src/graph/paths.cc ncclTopoCheckP2p; the
//    default level is PATH_PXB, "By default don't use P2P across CPU Host
//    Bridges and further apart", raised to PATH_SYS on x86 AMD CPUs when the
//    node has at most 2 GPUs; NCCL_P2P_LEVEL is left at its default): CUDA
//    P2P when the pair's path is PIX or PXB (one or several PCIe switches,
//    no host bridge), else SHM (src/transport/shm.cc): ncclTopoComputePaths
//    diverts the pair "through the CPU" local to the receiver
//    (addInterStep(CPU, the receiver's CPU)), and the SHM buffer is
//    allocated on the receiver's side (NCCL_SHM_LOCALITY default 2,
//    shmRecvProxySetup, host memory of the receiver's NUMA node). So the
//    sender's GPU writes into host memory of the receiver's socket and the
//    receiver's GPU reads it: our route goes up the sender's PCIe tree to its
//    socket, over the inter-socket link(s) when the sockets differ, and down
//    to the receiver (nccl_host_memory_route). Charged: every PCIe link of
//    both GPUs up to and down from the sockets (for two GPUs under one host
//    bridge, its link to the socket both ways, which CUDA P2P would not use)
//    and the inter-socket link once. Not charged: host memory bandwidth
//    (the topology has no memory resource; the bytes are written and read
//    once each). Charged although NCCL's SHM path does not use them: the
//    peer-to-peer forwarding capacity of the host bridges and sockets the
//    route passes (the simulator charges every transited forwarder of a
//    GPU-to-GPU route; a host-memory endpoint would need a resource of its
//    own), so where a root complex forwards below its link rate NCCL's SHM
//    pairs read slower here than NCCL would run them.
//
// Here: the rounds, in NCCL's order, are cut into waves of peers_in_flight
// consecutive rounds; a wave is one step (all its transfers at once on
// default routes) and waits for the previous one. This charges a barrier
// between waves where NCCL only orders the batches of each channel, so on
// uneven demands NCCL may read somewhat slower here than it would run.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

std::size_t pow2_up(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// NCCL's quadratic enumeration of the deltas 0..n-1.
std::vector<std::size_t> quadratic_deltas(std::size_t n) {
  std::vector<std::size_t> out;
  const std::size_t p = pow2_up(n);
  std::size_t delta = 0;
  for (std::size_t round = 0; round < p;) {
    if (delta < n) out.push_back(delta);
    ++round;
    delta = (delta + round) & (p - 1);
  }
  return out;
}

ComponentId socket_of(const Topology& t, ComponentId c) {
  while (t.components[c].parent != kNone) c = t.components[c].parent;
  return t.components[c].kind == ComponentKind::cpu ? c : kNone;
}

bool amd_cpu(const Component& cpu) {
  if (cpu.cpu_family.rfind("amd", 0) == 0) return true;  // capacity.hpp cpu_family_key
  return cpu.model.find("AMD") != std::string::npos;
}

}  // namespace

NcclTransport nccl_transport(const Topology& t, ComponentId a, ComponentId b) {
  if (t.components[a].node != t.components[b].node) return NcclTransport::net;
  PathType level = PathType::PXB;
  const ComponentId cpu = socket_of(t, a);
  std::size_t gpus = 0;
  for (ComponentId g : t.gpus) gpus += t.components[g].node == t.components[a].node;
  if (cpu != kNone && amd_cpu(t.components[cpu]) && gpus <= 2) level = PathType::SYS;
  return path_type(t, a, b) <= level ? NcclTransport::p2p : NcclTransport::shm;
}

Route nccl_host_memory_route(const Topology& t, ComponentId src, ComponentId dst) {
  const ComponentId from = socket_of(t, src), to = socket_of(t, dst);
  if (from == kNone || to == kNone || t.components[src].node != t.components[dst].node)
    throw InternalError(fmt::format("nccl_host_memory_route: {} and {} are not under sockets of one node",
                                            t.display_name(src), t.display_name(dst)));
  Route r;
  r.type = path_type(t, src, dst);
  for (const Route& part : {intra_node_route(t, src, from), from == to ? Route{} : intra_node_route(t, from, to),
                            intra_node_route(t, to, dst)})
    r.links.insert(r.links.end(), part.links.begin(), part.links.end());
  double rate = 1e300;
  for (std::size_t i = 0; i < r.links.size(); ++i) {
    rate = std::min(rate, t.links[r.links[i]].capacity.gbps);
    const ComponentId mid = t.links[r.links[i]].dst;
    if (i + 1 < r.links.size() && t.components[mid].forward &&
        std::find(r.forwarders.begin(), r.forwarders.end(), mid) == r.forwarders.end()) {
      r.forwarders.push_back(mid);
      rate = std::min(rate, t.components[mid].forward->gbps);
    }
  }
  r.solo_gbps = rate;
  return r;
}

std::vector<std::pair<std::size_t, std::size_t>> nccl_round_deltas(std::size_t nodes, std::size_t locals) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t nd : quadratic_deltas(nodes))
    for (std::size_t ld : quadratic_deltas(locals)) out.emplace_back(nd, ld);
  return out;
}

Schedule nccl_schedule(const Topology& t, const Demand& demand, const NcclOptions& opts) {
  demand.check_fits(t, "demand");
  if (opts.peers_in_flight < 1)
    throw UsageError(fmt::format("nccl_schedule: peers_in_flight must be >= 1, got {}", opts.peers_in_flight));
  const std::size_t n = demand.size();
  // GPUs by node, in local order; flat when the nodes differ in size.
  std::vector<std::vector<std::size_t>> members(t.nodes.size());
  std::vector<std::size_t> node_of(n), local_of(n);
  for (std::size_t g = 0; g < n; ++g) {
    auto node = static_cast<std::size_t>(t.components[t.gpus[g]].node);
    node_of[g] = node;
    local_of[g] = members[node].size();
    members[node].push_back(g);
  }
  bool flat = false;
  for (const auto& m : members) flat |= m.size() != members.front().size();
  if (flat) {
    members.assign(1, {});
    for (std::size_t g = 0; g < n; ++g) node_of[g] = 0, local_of[g] = g, members[0].push_back(g);
  }
  const std::size_t nodes = members.size(), locals = members.front().size();
  detail::FlowMaker make(t);
  const auto rounds = nccl_round_deltas(nodes, locals);
  const auto wave = static_cast<std::size_t>(opts.peers_in_flight);
  Schedule out;
  for (std::size_t first = 0; first < rounds.size(); first += wave) {
    Step step;
    for (std::size_t r = first; r < rounds.size() && r < first + wave; ++r) {
      const auto [nd, ld] = rounds[r];
      for (std::size_t s = 0; s < n; ++s) {
        const std::size_t d = members[(node_of[s] + nd) % nodes][(local_of[s] + ld) % locals];
        if (d == s || demand.at(s, d) <= 0) continue;
        const ComponentId gs = t.gpus[s], gd = t.gpus[d];
        if (nccl_transport(t, gs, gd) == NcclTransport::shm)
          step.flows.push_back(Flow{gs, gd, gs, gd, demand.at(s, d), nccl_host_memory_route(t, gs, gd)});
        else
          step.flows.push_back(make.direct(s, d, demand.at(s, d)));
      }
    }
    if (!step.flows.empty()) out.steps.push_back(std::move(step));
  }
  return out;
}

}  // namespace vp::sim
