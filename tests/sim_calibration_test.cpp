// Calibration of the FAST-like baseline against the public FAST simulator
// (docs/design.md §8): on servers whose intra-server fabric is NVLink-fast
// (380 GB/s) with one 100 Gb/s NIC per GPU, uniform traffic on 8 servers x
// 8 GPUs, FAST reports 12.44 GB/s per GPU against a bound of 12.81.
//
// Algorithmic bandwidth here is per GPU: the bytes a GPU sends to other
// servers divided by the completion time. That is the definition under
// which FAST's published pair of figures is consistent (8 x 8: 12.81 bound,
// 32 x 8: 11.89 fit one link rate plus a per-stage cost; counting every byte
// a GPU sends cannot fit both, see docs/simulator.md). Counting the
// intra-server bytes too would multiply every figure here by 63/56.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "contention_file.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/prng.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/import/cluster_spec.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

// One socket; under its host bridge a switch with eight leaf switches, each
// holding one GPU and its NIC; every PCIe-tree link 380 GB/s (an NVLink
// stand-in); NICs 100 Gb/s.
Topology nvlink_like_node() {
  Topology t;
  t.nodes.push_back(NodeInfo{"node0", "nvlink-like"});
  const Capacity fast{380.0, CapacitySource::input, "NVLink-class stand-in"};
  auto child = [&](ComponentKind kind, ComponentId parent) {
    ComponentId c = t.add_component(kind, 0);
    t.components[c].parent = parent;
    t.add_duplex_link(c, parent, LinkKind::pcie, fast);
    return c;
  };
  ComponentId cpu = t.add_component(ComponentKind::cpu, 0);
  ComponentId top = child(ComponentKind::pcie_switch, child(ComponentKind::host_bridge, cpu));
  for (int i = 0; i < 8; ++i) {
    ComponentId leaf = child(ComponentKind::pcie_switch, top);
    child(ComponentKind::gpu, leaf);
    Component& nic = t.components[child(ComponentKind::nic, leaf)];
    nic.line_rate_gbitps = 100, nic.ports = 1, nic.gpudirect = true;
  }
  canonicalize(t, "calibration");
  return t;
}

// Mean bytes a GPU sends to other servers, per microsecond, in GB/s.
double scale_out_algbw(const Topology& t, const Demand& d, double time_us) {
  double bytes = 0.0;
  for (std::size_t s = 0; s < d.size(); ++s)
    for (std::size_t r = 0; r < d.size(); ++r)
      if (t.components[t.gpus[s]].node != t.components[t.gpus[r]].node) bytes += d.at(s, r);
  return bytes / static_cast<double>(d.size()) / (time_us * 1e3);
}

}  // namespace

// Under the ideal model only: FAST's own simulator is an alpha-beta model
// without contention, so its figure calibrates the schedule, not the
// contention model. The start-up of a step is FAST's alpha of its
// InfiniBand link (simulation/scheduler/config.cpp: 1.7 us): FAST-like runs
// each stage as g-1 intra-server shift steps, each of which pays the
// simulator's one start-up where FAST's model charges 0.1 us per shift.
TEST_CASE("FAST-like on NVLink-fast servers matches the public FAST simulator's figure") {
  Topology t = expand_cluster(cluster_from_shortcut(nvlink_like_node(), 8, FabricKind::single_switch, 0, 1.0));
  REQUIRE(t.gpus.size() == 64);
  Demand d = uniform_demand(64, 1e6);
  SimOptions so;
  so.latency_us = 1.7;
  const double fast = scale_out_algbw(t, d, simulate(t, fast_schedule(t, d), so).time_us);
  const double bound = scale_out_algbw(t, d, lower_bound(t, d, BoundOptions{so.latency_us}).time_us);
  MESSAGE("FAST-like: ", fast, " GB/s per GPU; bound: ", bound, " GB/s (public FAST: 12.44 against 12.81)");
  CHECK(fast == doctest::Approx(12.44).epsilon(0.05));
  CHECK(fast <= bound);
  CHECK(fast / bound == doctest::Approx(12.44 / 12.81).epsilon(0.05));
}

namespace {

// One socket, one host bridge without a forwarding limit (the measurement
// below is of the switch, not of the CPU), under it two PCIe switches: the
// first with four GPUs, the second with two; every link Gen4 x16 at the
// rate one pair was measured at.
Topology pex_node(double link_gbps) {
  Topology t;
  t.nodes.push_back(NodeInfo{"node0", "pex88096"});
  const Capacity link{link_gbps, CapacitySource::input, "measured Gen4 x16 pair rate"};
  auto child = [&](ComponentKind kind, ComponentId parent) {
    ComponentId c = t.add_component(kind, 0);
    t.components[c].parent = parent;
    t.add_duplex_link(c, parent, LinkKind::pcie, link);
    return c;
  };
  ComponentId cpu = t.add_component(ComponentKind::cpu, 0);
  ComponentId hb = child(ComponentKind::host_bridge, cpu);
  ComponentId sw0 = child(ComponentKind::pcie_switch, hb), sw1 = child(ComponentKind::pcie_switch, hb);
  for (int i = 0; i < 4; ++i) child(ComponentKind::gpu, sw0);
  for (int i = 0; i < 2; ++i) child(ComponentKind::gpu, sw1);
  canonicalize(t, "calibration");
  return t;
}

// GB/s of `bytes` moved in `time_us` (after the start-up latency).
double gbps(double bytes, double time_us, double latency_us) { return bytes / ((time_us - latency_us) * 1e3); }

Step pairs_step(const Topology& t, std::initializer_list<std::pair<std::size_t, std::size_t>> pairs, double bytes) {
  Step s;
  for (auto [a, b] : pairs)
    s.flows.push_back(Flow{t.gpus[a], t.gpus[b], t.gpus[a], t.gpus[b], bytes, intra_node_route(t, t.gpus[a], t.gpus[b])});
  return s;
}

std::vector<std::pair<const char*, SimOptions>> both_models() {
  SimOptions ideal, contention;
  contention.contention = sim_cli::read_contention_file(VP_CONTENTION_TABLE);
  return {{"ideal", ideal}, {"contention", contention}};
}

}  // namespace

TEST_CASE("PEX88096: two disjoint pairs at 28.5 GB/s each, their shared x16 uplink 28.4 in total") {
  // docs/design.md §8 (measured): one PEX88096 Gen4 switch carried two
  // disjoint 28.5 GB/s pairs at once (non-blocking), while its shared x16
  // uplink capped at 28.4 GB/s in total. The link rate is the measured pair
  // rate; what is calibrated is the switch model (non-blocking inside,
  // one link's worth through the uplink) and, under the contention model,
  // the per-chunk cost charged on the shared uplink.
  const Topology t = pex_node(28.5);
  const double bytes = 256e6;
  for (const auto& [name, o] : both_models()) {
    CAPTURE(name);
    const SimResult pairs = simulate(t, Schedule{{pairs_step(t, {{0, 1}, {2, 3}}, bytes)}}, o);
    CHECK(gbps(bytes, pairs.time_us, o.latency_us) == doctest::Approx(28.5).epsilon(0.05));  // each pair
    const SimResult up = simulate(t, Schedule{{pairs_step(t, {{0, 4}, {1, 5}}, bytes)}}, o);
    MESSAGE(std::string(name), ": pairs ", gbps(bytes, pairs.time_us, o.latency_us), " GB/s each; shared uplink ",
            gbps(2 * bytes, up.time_us, o.latency_us), " GB/s in total (measured 28.5 / 28.4)");
    CHECK(gbps(2 * bytes, up.time_us, o.latency_us) == doctest::Approx(28.4).epsilon(0.05));
  }
}

// The published Gen5 x16 peer-to-peer figures of docs/design.md §8:
// voipmonitor/rtx6kpro hardware/pcie-bandwidth.md (commit 070506ff), CUDA
// p2pBandwidthLatencyTest / p2pmark, unidirectional P2P writes between RTX
// PRO 6000 Blackwell GPUs on Gen5 x16 links, one pair at a time: same NUMA
// node 53-56 GB/s (two dual-Turin machines with GPUs on root ports, ~55-56
// and ~53; dual EPYC 9374F ~54; single-CPU machines with PCIe switches ~54;
// an ASUS ESC8000A-E13P through Broadcom PEX890xx switches ~54), across NUMA
// nodes 39-51.

TEST_CASE("Gen5 peer-to-peer across sockets lands in the measured 39-51 GB/s") {
  // docs/design.md §8 (measured): Gen5 peer-to-peer 39-51 GB/s across
  // sockets. The model: Gen5 x16 at NCCL's 48 GB/s, the inter-socket link of
  // an Emerald Rapids pair at 40 GB/s (capacity defaults), one pair alone.
  // Inside a socket the model gives 48 against the measured 53-56: see the
  // known miss below. The measurements (source above) are of AMD pairs
  // (EPYC 9374F: 39, Turin: 51, an ASUS ESC8000A-E13P: 50); the table's AMD
  // figure (inter_socket.amd, NCCL's AMD_BW 16 GB/s) would read 2.4-3.2x
  // below them, so this case checks the shape of the route, not the AMD row.
  SyntheticOptions so;
  so.pcie_gen = 5;
  so.cpu_family = "intel_emerald_rapids";
  const Topology t = make_node_from_shape("[g2]|[g2]", so);
  const double bytes = 256e6;
  for (const auto& [name, o] : both_models()) {
    CAPTURE(name);
    const SimResult across = simulate(t, Schedule{{pairs_step(t, {{0, 2}}, bytes)}}, o);
    const double rate = gbps(bytes, across.time_us, o.latency_us);
    MESSAGE(std::string(name), ": Gen5 across sockets ", rate, " GB/s (measured 39-51)");
    CHECK(rate >= 39.0 * 0.95);
    CHECK(rate <= 51.0 * 1.05);
  }
}

TEST_CASE("Gen5 peer-to-peer inside a socket: the table's pcie.gen5 binds, in a switch and through the root complex") {
  // Why the model reads 48 inside a socket: one pair alone is limited by
  // its GPU links, Gen5 x16 at the table's pcie.gen5 (NCCL's effective
  // figure, src/graph/topo.h, not a measurement), and through a root complex
  // also by its forwarding capacity, root_complex_p2p_factor (1.0) x its
  // fastest link: the same figure. No efficiency factor is applied.
  for (const char* shape : {"[g2]|[g2]", "g2|g2"}) {  // one switch (PIX); root ports (through host_bridge0)
    CAPTURE(shape);
    for (double gen5 : {48.0, 54.0}) {
      SyntheticOptions so;
      so.pcie_gen = 5;
      so.cpu_family = "intel_emerald_rapids";
      if (gen5 != 48.0) so.defaults.set("pcie.gen5", gen5, "test");
      const Topology t = make_node_from_shape(shape, so);
      const double bytes = 256e6;
      const SimOptions o;
      CHECK(gbps(bytes, simulate(t, Schedule{{pairs_step(t, {{0, 1}}, bytes)}}, o).time_us, o.latency_us) ==
            doctest::Approx(gen5));
    }
  }
}

// Known miss, kept visible: with pcie.gen5 = 48 the model is 9-14 % below
// the measured 53-56 (source above the across-sockets case) under both models, in a switch and
// through a root complex. The fix is the table's figure (about 54, the
// measurements' middle), which the lead decides: it changes every catalog's
// defaults and the Gen5 platforms. should_fail: when the figure moves into
// 53-56 +- 5 % this case passes, doctest reports it, and the decorator goes.
TEST_CASE("known miss: Gen5 peer-to-peer inside a socket reads 48 against the measured 53-56" *
          doctest::should_fail()) {
  for (const char* shape : {"[g2]|[g2]", "g2|g2"}) {
    CAPTURE(shape);
    SyntheticOptions so;
    so.pcie_gen = 5;
    so.cpu_family = "intel_emerald_rapids";
    const Topology t = make_node_from_shape(shape, so);
    const double bytes = 256e6;
    for (const auto& [name, o] : both_models()) {
      CAPTURE(name);
      const double rate = gbps(bytes, simulate(t, Schedule{{pairs_step(t, {{0, 1}}, bytes)}}, o).time_us, o.latency_us);
      CHECK(rate >= 53.0 * 0.95);
      CHECK(rate <= 56.0 * 1.05);
    }
  }
}

namespace {

// DeepEP's PCIe mode (deepseek-ai/DeepEP docs/README_PCIe.md): on H20 with
// NVLink disabled, one ConnectX-7 per GPU, 4096 tokens, hidden 7168, top-k 8,
// 24 SMs, dispatch (FP8) 53.01 GB/s at EP 8 and 47.98 GB/s at EP 16. The
// benchmark is the test that README names, tests/test_normal_without_nvl.py
// (defaults: 4096 tokens, hidden 7168, top-k 8, 256 experts):
//   * experts: topk_idx = topk(random scores, 8), a uniformly random set of
//     8 distinct experts of 256 per token; expert e lives on rank
//     e / (256 / ranks);
//   * bytes: num_rdma_token_sent = the (token, destination rank) pairs,
//     each rank counted once per token *and the sending rank itself
//     included*, times hidden x 2 x fp8_factor, fp8_factor = (1 + 4/128) / 2:
//     7168 FP8 bytes plus 56 float scales = 7392 bytes per pair (the tuned
//     dispatch runs cached, without top-k fields: csrc/kernels/pcie.cu's
//     get_num_bytes_per_pcie_token is then the same 7392);
//   * time: the mean time of one dispatch kernel (bench), printed by rank 0:
//     GB/s = bytes / 1e9 / t.
// What moves: pcie.cu's dispatch_pcie writes a token for its own rank
// straight into its own receive buffer and posts an RDMA put only for
// dst != rank; every other rank, inside the node too, is an IBGDA put
// through the sender's NIC to the receiver's (one GPU one NIC: out of the
// sender's port, through the fabric switch, into the receiver's NIC). So
// the demand below holds the off-diagonal pairs, and the bandwidth divides
// the bytes of all pairs, the self ones included, as DeepEP does.
// Combine sends each pair's token back in BF16 (hidden x 2 = 14336 bytes,
// the figure DeepEP divides) with its 8 float top-k weights (pcie.cu's
// combine_pcie: get_num_bytes_per_pcie_token(hidden_int4, 0, 0, num_topk),
// 14368 bytes that move).
constexpr double kDispatchBytes = 7168 + 7168 / 128 * 4;  // FP8 + scales: 7392, moved and counted
constexpr double kCombineCountedBytes = 7168 * 2;          // 14336
constexpr double kCombineMovedBytes = 7168 * 2 + 8 * 4;    // 14368

struct DeepEpTraffic {
  Demand demand;             // bytes that cross the NICs: s -> d, d != s
  double counted_bytes = 0;  // what rank 0's benchmark divides (its self pairs included)
};

// tokens[s * ranks + d]: rank s's tokens with an expert on rank d (d == s
// included), as test_normal_without_nvl.py draws them.
std::vector<double> deepep_token_pairs(std::size_t ranks, std::uint64_t seed) {
  constexpr std::size_t kTokens = 4096, kExperts = 256, kTopK = 8;
  const std::size_t experts_per_rank = kExperts / ranks;
  std::vector<double> tokens(ranks * ranks, 0.0);
  Prng rng(seed);
  std::vector<std::size_t> experts(kExperts);
  std::vector<char> hit(ranks);
  for (std::size_t s = 0; s < ranks; ++s) {
    for (std::size_t token = 0; token < kTokens; ++token) {
      std::iota(experts.begin(), experts.end(), std::size_t{0});
      std::fill(hit.begin(), hit.end(), 0);
      for (std::size_t i = 0; i < kTopK; ++i) {  // a uniform k-subset (partial Fisher-Yates)
        std::swap(experts[i], experts[i + rng.below(kExperts - i)]);
        hit[experts[i] / experts_per_rank] = 1;
      }
      for (std::size_t d = 0; d < ranks; ++d) tokens[s * ranks + d] += hit[d];
    }
  }
  return tokens;
}

DeepEpTraffic deepep_dispatch(std::size_t ranks, const std::vector<double>& tokens) {
  DeepEpTraffic out{Demand(ranks), 0.0};
  for (std::size_t s = 0; s < ranks; ++s)
    for (std::size_t d = 0; d < ranks; ++d)
      if (d != s) out.demand.set(s, d, tokens[s * ranks + d] * kDispatchBytes);
  for (std::size_t d = 0; d < ranks; ++d) out.counted_bytes += tokens[d] * kDispatchBytes;
  return out;
}

// Every rank returns what it received: the transpose, in BF16.
DeepEpTraffic deepep_combine(std::size_t ranks, const std::vector<double>& tokens) {
  DeepEpTraffic out{Demand(ranks), 0.0};
  for (std::size_t s = 0; s < ranks; ++s)
    for (std::size_t d = 0; d < ranks; ++d)
      if (d != s) out.demand.set(d, s, tokens[s * ranks + d] * kCombineMovedBytes);
  for (std::size_t d = 0; d < ranks; ++d) out.counted_bytes += tokens[d] * kCombineCountedBytes;
  return out;
}

Topology platform_cluster(const std::string& cluster_file) {
  return expand_cluster(load_cluster_spec(std::string(VP_FIXTURES_DIR) + "/platforms/" + cluster_file, nullptr, {}));
}

struct DeepEpCase {
  const char* cluster;
  std::size_t ep;
  double dispatch_gbps, combine_gbps;  // published
};

const DeepEpCase kDeepEpCases[] = {{"hgx-h20-8cx7-1n-switch.cluster.json", 8, 53.01, 53.67},
                                   {"hgx-h20-8cx7-2n-switch.cluster.json", 16, 47.98, 49.48}};

struct DeepEpFigures {
  double dispatch_gbps, combine_gbps;
};

// DeepEP's two bandwidths for the deepep_pcie schedule on the case's cluster.
DeepEpFigures deepep_figures(const DeepEpCase& c, const SimOptions& o) {
  const Topology t = platform_cluster(c.cluster);
  REQUIRE(t.gpus.size() == c.ep);
  const std::vector<double> tokens = deepep_token_pairs(c.ep, 1);
  auto gbps = [&](const DeepEpTraffic& x) {
    return x.counted_bytes / (simulate(t, deepep_pcie_schedule(t, x.demand), o).time_us * 1e3);
  };
  return {gbps(deepep_dispatch(c.ep, tokens)), gbps(deepep_combine(c.ep, tokens))};
}

bool within_5pct(double got, double published) { return std::abs(got / published - 1.0) <= 0.05; }

}  // namespace

TEST_CASE("DeepEP PCIe mode on H20 under the ideal model: at or above every figure, EP 16 dispatch 6 % above") {
  // The ideal model loses nothing, so it may not fall below a measurement:
  // a figure above it would mean a missing capacity or bytes counted wrong
  // (counting only the bytes that move, without DeepEP's self pairs, gives
  // 7/8 and 15/16 of these figures: below 53.01). Nothing in it depends on
  // the number of peers, so EP 16 differs from EP 8 only by its smaller
  // share of self pairs (1/16 against 1/8): GPU link 48 GB/s (pcie.gen5)
  // x 8/7 = 54.9 and x 16/15 = 51.2 before latency and the spread of pair
  // sizes. DeepEP measured 10 % less at EP 16 than at EP 8 (dispatch); the
  // ideal model gives 6 %, so EP 16 dispatch lands 5.9 % above: outside 5 %.
  for (const DeepEpCase& c : kDeepEpCases) {
    CAPTURE(c.ep);
    const DeepEpFigures f = deepep_figures(c, SimOptions{});
    MESSAGE("ideal, EP ", c.ep, ": dispatch ", f.dispatch_gbps, " GB/s (DeepEP: ", c.dispatch_gbps, "), combine ",
            f.combine_gbps, " GB/s (DeepEP: ", c.combine_gbps, ")");
    CHECK(f.dispatch_gbps >= c.dispatch_gbps);
    CHECK(f.combine_gbps >= c.combine_gbps);
    CHECK(within_5pct(f.combine_gbps, c.combine_gbps));
    if (c.ep == 8) CHECK(within_5pct(f.dispatch_gbps, c.dispatch_gbps));
  }
}

TEST_CASE("DeepEP PCIe mode on H20 under the committed contention table: all four figures within 5 %") {
  // Every pair runs at once (7 or 15 per NIC), so every GPU link and NIC
  // port is crowded and charged: the per-chunk cost on every link and the
  // NIC curve on the NIC ports. The table's nic.slope (0.004) was set from
  // these same four figures (with chunk.overhead_us 0.1 and nic.floor 0.5),
  // so this case checks that the table stays consistent with them; it is no
  // independent evidence for the value (the figures do not separate a
  // per-connection loss from a constant one: slope 0 with the chunk cost
  // alone fits the dispatch figures too, see below).
  SimOptions o;
  o.contention = sim_cli::read_contention_file(VP_CONTENTION_TABLE);
  for (const DeepEpCase& c : kDeepEpCases) {
    CAPTURE(c.ep);
    const DeepEpFigures f = deepep_figures(c, o), ideal = deepep_figures(c, SimOptions{});
    MESSAGE("contention, EP ", c.ep, ": dispatch ", f.dispatch_gbps, " GB/s (DeepEP: ", c.dispatch_gbps,
            "), combine ", f.combine_gbps, " GB/s (DeepEP: ", c.combine_gbps, ")");
    CHECK(f.dispatch_gbps < ideal.dispatch_gbps);  // the model only charges
    CHECK(f.combine_gbps < ideal.combine_gbps);
    CHECK(within_5pct(f.dispatch_gbps, c.dispatch_gbps));
    CHECK(within_5pct(f.combine_gbps, c.combine_gbps));
  }
}

TEST_CASE("DeepEP PCIe mode on H20: both dispatch figures hold within 5 % over the NIC slope's sweep") {
  // The sweep of nic.slope in docs/evaluation.md runs from 0 to 0.0085, the
  // range in which both dispatch figures stay within 5 % (chunk.overhead_us
  // 0.1; with the combine figures too the range ends at 0.0059). Under the
  // earlier placeholder 0.01, EP 16 read 44.8 against 47.98 (-6.6 %).
  SimOptions o;
  o.contention = sim_cli::read_contention_file(VP_CONTENTION_TABLE);
  for (double slope : {0.0, 0.0085}) {
    o.contention.nic.slope = slope;
    for (const DeepEpCase& c : kDeepEpCases) {
      CAPTURE(slope);
      CAPTURE(c.ep);
      CHECK(within_5pct(deepep_figures(c, o).dispatch_gbps, c.dispatch_gbps));
    }
  }
  o.contention.nic.slope = 0.01;
  CHECK_FALSE(within_5pct(deepep_figures(kDeepEpCases[1], o).dispatch_gbps, kDeepEpCases[1].dispatch_gbps));
}
