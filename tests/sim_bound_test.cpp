// The cut lower bound on hand-computed cases, and against simulated schedules.
#include <doctest/doctest.h>

#include "vp/sim/baselines.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;
using namespace vp::sim;

namespace {
constexpr const char* kServer = "[g2,n1],[g2,n1]|[g2,n1],[g2,n1]";  // Gen4 x16 (24 GB/s), 200 Gb/s NICs, AMD sockets (16 GB/s)

BoundOptions no_latency() {
  BoundOptions o;
  o.latency_us = 0;
  return o;
}
}  // namespace

TEST_CASE("a GPU's own link bounds what it sends") {
  Topology t = make_node_from_shape(kServer, {});
  Demand d(8);
  for (std::size_t k = 1; k <= 3; ++k) d.set(0, k, 48e3);
  // gpu0's up-link carries 144e3 bytes at 24 GB/s: 6 us; its switch's
  // up-link only the 96e3 bytes for gpu2 and gpu3: 4 us.
  LowerBound b = lower_bound(t, d);
  CHECK(b.cut.name == "gpu0 up-link");
  CHECK(b.cut.bytes == 144e3);
  CHECK(b.cut.gbps == 24.0);
  CHECK(b.cut.time_us == doctest::Approx(6.0));
  CHECK(b.time_us == doctest::Approx(11.0));  // plus the default 5 us start-up latency
}

TEST_CASE("the inter-socket link is the cut when both GPUs of a switch send across sockets") {
  Topology t = make_node_from_shape(kServer, {});
  Demand d(8);
  for (std::size_t s : {0, 1})
    for (std::size_t r : {4, 5}) d.set(s, r, 48e3);
  // Each GPU link: 96e3 bytes / 24 GB/s = 4 us; switch0's up-link: 192e3 /
  // 24 = 8 us; socket 0's only way out is the 16 GB/s inter-socket link:
  // 192e3 / 16 = 12 us.
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "cpu0 socket out");
  CHECK(b.time_us == doctest::Approx(12.0));
}

TEST_CASE("a node's NICs bound the traffic between nodes") {
  Topology node = make_node_from_shape(kServer, {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 2, FabricKind::single_switch, 0, 1.0));
  Demand d(16);
  for (std::size_t g = 0; g < 8; ++g) d.set(g, 8 + g, 100e3);
  // 800e3 bytes through 4 NICs of 25 GB/s: 8 us (a GPU link: 4.2 us; a
  // switch's GPUs and NIC: 200e3 / (24 + 25) GB/s = 4.1 us). node1's NICs
  // in tie; node0 comes first.
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "node0 NICs out");
  CHECK(b.cut.gbps == 100.0);
  CHECK(b.time_us == doctest::Approx(8.0));
}

TEST_CASE("an oversubscribed leaf bounds the traffic that leaves its nodes") {
  Topology node = make_node_from_shape(kServer, {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 4, FabricKind::leaf_spine, 2, 4.0));
  Demand d(32);
  for (std::size_t g = 0; g < 16; ++g) d.set(g, 16 + g, 100e3);
  // leaf0 holds nodes 0-1: 8 NICs x 25 GB/s of downlinks / 4 = 50 GB/s up;
  // 1.6e6 bytes / 50 GB/s = 32 us (each node's NICs: 8 us).
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "leaf0 group out");
  CHECK(b.time_us == doctest::Approx(32.0));
}

TEST_CASE("an oversubscribed rail's spine link bounds traffic between the rails' PCIe switches") {
  Topology node = make_node_from_shape(kServer, {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 3, FabricKind::rail, 0, 8.0));
  // Every GPU under pcie_switch0 (local GPUs 0 and 1, next to NIC 0 on
  // rail0) sends 100e3 bytes to every GPU under pcie_switch1 (local GPUs 2
  // and 3, NIC 1 on rail1), in every node: 6 x 6 pairs, 3.6e6 bytes.
  Demand d(24);
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t g : {0, 1})
      for (std::size_t b = 0; b < 3; ++b)
        for (std::size_t h : {2, 3}) d.set(8 * a + g, 8 * b + h, 100e3);
  // rail0 with the three pcie_switch0 subtrees: all 3.6e6 bytes leave it,
  // through the three switch up-links (3 x 24 GB/s) and rail0's spine
  // uplink (3 NICs x 25 GB/s / 8 = 9.375 GB/s): 81.375 GB/s, 44.24 us.
  // Alone, a GPU's link: 600e3 / 24 = 25 us; one pcie_switch0 subtree (its
  // up-link and NIC 0): 1.2e6 / 49 = 24.5 us; a node's NICs: 0.8e6 / 100.
  // rail1's group takes the same bytes in, through the same capacity: a
  // tie, and rail0 comes first.
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "rail0 + pcie_switch subtrees out");
  CHECK(b.cut.bytes == 3.6e6);
  CHECK(b.cut.gbps == doctest::Approx(81.375));
  CHECK(b.time_us == doctest::Approx(3.6e6 / 81.375e3));
  // Without oversubscription the spine link carries 75 GB/s: the rail
  // group gives 3.6e6 / 147 GB/s = 24.49 us, below a GPU's link.
  Topology full = expand_cluster(cluster_from_shortcut(node, 3, FabricKind::rail, 0, 1.0));
  LowerBound f = lower_bound(full, d, no_latency());
  CHECK(f.time_us == doctest::Approx(25.0));  // gpu up-links: 600e3 / 24 GB/s
  CHECK(f.cut.name == "node0/gpu0 up-link");
}

TEST_CASE("no baseline beats the bound on an oversubscribed rail fabric") {
  Topology node = make_node_from_shape(kServer, {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 3, FabricKind::rail, 0, 8.0));
  MoeOptions moe;
  moe.tokens_per_gpu = 256;
  moe.zipf_exponent = 1.0;
  // Uniform: a rail group's 6 GPUs send 108e6 bytes out through 81.375
  // GB/s (1327 us); a node's NICs 128e6 through 100 GB/s (1280 us).
  CHECK(lower_bound(t, uniform_demand(24, 1e6)).cut.name.rfind("rail", 0) == 0);
  for (const Demand& d : {uniform_demand(24, 1e6), moe_dispatch_demand(24, moe)}) {
    const LowerBound b = lower_bound(t, d);
    CHECK(simulate(t, fanout_schedule(t, d)).time_us >= b.time_us);
    CHECK(simulate(t, spreadout_schedule(t, d)).time_us >= b.time_us);
    CHECK(simulate(t, fast_schedule(t, d)).time_us >= b.time_us);
    CHECK(simulate(t, deepep_schedule(t, d)).time_us >= b.time_us);
  }
}

TEST_CASE("in a single node, a root complex that both directions must transit is a cut") {
  Topology t = make_node_from_shape(kServer, {});
  // gpu0 (pcie_switch0) <-> gpu2 (pcie_switch1), 48e3 bytes each way: each
  // switch's up-link carries 48e3 per direction (2 us at 24 GB/s), but the
  // root complex between the two switches forwards both: 96e3 bytes at its
  // 24 GB/s forwarding capacity, 4 us.
  ComponentId hb = kNone;
  for (ComponentId c : t.host_bridges)
    if (t.components[c].local_index == 0) hb = c;
  REQUIRE(hb != kNone);
  REQUIRE(t.components[hb].forward.has_value());
  CHECK(t.components[hb].forward->gbps == 24.0);
  Demand d(8);
  d.set(0, 2, 48e3);
  d.set(2, 0, 48e3);
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "host_bridge0 forwarding");
  CHECK(b.cut.bytes == 96e3);
  CHECK(b.time_us == doctest::Approx(4.0));
  // The simulator agrees: both flows share the 24 GB/s, 12 GB/s each.
  SimOptions o;
  o.latency_us = 0;
  CHECK(simulate(t, fanout_schedule(t, d), o).time_us == doctest::Approx(4.0));
  // With a fabric a relay through another node could avoid it: no such cut.
  Topology two = expand_cluster(cluster_from_shortcut(t, 2, FabricKind::single_switch, 0, 1.0));
  Demand d2(16);
  d2.set(0, 2, 48e3);
  d2.set(2, 0, 48e3);
  CHECK(lower_bound(two, d2, no_latency()).cut.name.find("forwarding") == std::string::npos);
}

TEST_CASE("an empty demand needs no time; a demand must fit the topology") {
  Topology t = make_node_from_shape(kServer, {});
  LowerBound b = lower_bound(t, Demand(8));
  CHECK(b.time_us == 0.0);
  CHECK(b.cut.name.empty());
  CHECK_THROWS_WITH_AS(lower_bound(t, Demand(4)), "demand: the demand is 4 x 4 but the topology has 8 GPUs", InputError);
}

TEST_CASE("no baseline beats the bound") {
  Topology node = make_node_from_shape(kServer, {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 4, FabricKind::single_switch, 0, 1.0));
  MoeOptions moe;
  moe.tokens_per_gpu = 256;
  moe.zipf_exponent = 1.2;
  for (const Demand& d : {uniform_demand(32, 1e6), hot_spot_demand(32, 1e6, 5), moe_dispatch_demand(32, moe)}) {
    double bound = lower_bound(t, d).time_us;
    CHECK(simulate(t, fanout_schedule(t, d)).time_us >= bound);
    CHECK(simulate(t, spreadout_schedule(t, d)).time_us >= bound);
    CHECK(simulate(t, fast_schedule(t, d)).time_us >= bound);
    CHECK(simulate(t, deepep_schedule(t, d)).time_us >= bound);
  }
}
