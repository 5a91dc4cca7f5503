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
// Here: the rounds, in NCCL's order, are cut into waves of peers_in_flight
// consecutive rounds; a wave is one step (all its transfers at once on
// default routes) and waits for the previous one. This charges a barrier
// between waves where NCCL only orders the batches of each channel, so on
// uneven demands NCCL may read somewhat slower here than it would run.
#include <fmt/format.h>

#include <stdexcept>

#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"

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

}  // namespace

std::vector<std::pair<std::size_t, std::size_t>> nccl_round_deltas(std::size_t nodes, std::size_t locals) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t nd : quadratic_deltas(nodes))
    for (std::size_t ld : quadratic_deltas(locals)) out.emplace_back(nd, ld);
  return out;
}

Schedule nccl_schedule(const Topology& t, const Demand& demand, const NcclOptions& opts) {
  demand.check_fits(t, "demand");
  if (opts.peers_in_flight < 1)
    throw std::invalid_argument(fmt::format("nccl_schedule: peers_in_flight must be >= 1, got {}", opts.peers_in_flight));
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
        if (d != s && demand.at(s, d) > 0) step.flows.push_back(make.direct(s, d, demand.at(s, d)));
      }
    }
    if (!step.flows.empty()) out.steps.push_back(std::move(step));
  }
  return out;
}

}  // namespace vp::sim
