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

#include "contention_file.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
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
// contention model.
TEST_CASE("FAST-like on NVLink-fast servers matches the public FAST simulator's figure") {
  Topology t = expand_cluster(cluster_from_shortcut(nvlink_like_node(), 8, FabricKind::single_switch, 0, 1.0));
  REQUIRE(t.gpus.size() == 64);
  Demand d = uniform_demand(64, 1e6);
  const double fast = scale_out_algbw(t, d, simulate(t, fast_schedule(t, d)).time_us);
  const double bound = scale_out_algbw(t, d, lower_bound(t, d).time_us);
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

TEST_CASE("Gen5 peer-to-peer across sockets lands in the measured 39-51 GB/s") {
  // docs/design.md §8 (measured): Gen5 peer-to-peer 39-51 GB/s across
  // sockets. The model: Gen5 x16 at NCCL's 48 GB/s, the inter-socket link of
  // an Emerald Rapids pair at 40 GB/s (capacity defaults), one pair alone.
  // Inside a socket the model gives 48 against the measured 53-56: below by
  // 9-14%, a known miss of NCCL's effective Gen5 figure (docs/evaluation.md).
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
