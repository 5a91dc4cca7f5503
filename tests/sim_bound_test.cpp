// The cut lower bound and the route bound of the direct-route schedulers on
// hand-computed cases, and against simulated schedules.
#include <doctest/doctest.h>


#include "sim_platforms.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/route_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/synthetic.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;
using vp::sim::test::fixture_platforms;
using vp::sim::test::committed_contention;
using vp::sim::test::for_each_suite_case;
using vp::sim::test::no_latency;

namespace {
constexpr const char* kServer = "[g2,n1],[g2,n1]|[g2,n1],[g2,n1]";  // Gen4 x16 (24 GB/s), 200 Gb/s NICs, AMD sockets (16 GB/s)
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
  // 800e3 bytes through 4 NICs, each of 200 Gb/s (25 GB/s) behind a Gen4
  // x16 link (24 GB/s): each counts at the smaller, 24; 800e3 / 96 GB/s =
  // 8.33 us (at the line rate it read 8 us, more than the NICs can take
  // from PCIe). A GPU link: 4.2 us; a switch's GPUs and NIC: 200e3 / (24 +
  // 25) GB/s = 4.1 us. node1's NICs in tie; node0 comes first.
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "node0 NICs out");
  CHECK(b.cut.gbps == 96.0);
  CHECK(b.time_us == doctest::Approx(800e3 / 96e3));
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
  // GB/s (1327 us); a node's NICs 128e6 through 4 x min(25, 24) = 96 GB/s
  // (1333 us). At 16:1 the rail's spine uplink is 4.69 GB/s: 108e6 over
  // 76.69 GB/s, 1408 us.
  CHECK(lower_bound(t, uniform_demand(24, 1e6)).cut.name == "node0 NICs out");
  Topology thin = expand_cluster(cluster_from_shortcut(node, 3, FabricKind::rail, 0, 16.0));
  CHECK(lower_bound(thin, uniform_demand(24, 1e6)).cut.name.rfind("rail", 0) == 0);
  for (const Demand& d : {uniform_demand(24, 1e6), moe_dispatch_demand(24, moe)}) {
    const LowerBound b = lower_bound(t, d);
    CHECK(simulate(t, fanout_schedule(t, d)).time_us >= b.time_us);
    CHECK(simulate(t, spreadout_schedule(t, d)).time_us >= b.time_us);
    CHECK(simulate(t, fast_schedule(t, d)).time_us >= b.time_us);
    CHECK(simulate(t, deepep_nvlink_style_schedule(t, d)).time_us >= b.time_us);
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
  // With a fabric, switch0 and switch1 each reach a NIC: a relay through
  // another node goes around the root complex, so it separates nothing.
  Topology two = expand_cluster(cluster_from_shortcut(t, 2, FabricKind::single_switch, 0, 1.0));
  Demand d2(16);
  d2.set(0, 2, 48e3);
  d2.set(2, 0, 48e3);
  CHECK(lower_bound(two, d2, no_latency()).cut.name.find("forwarding") == std::string::npos);
}

TEST_CASE("in a cluster, a root complex that is a switch's only way to a NIC is a cut") {
  // Socket 0: switch0 with gpu0, gpu1 and the node's only NIC, switch1 with
  // gpu2, gpu3, both under host_bridge0; socket 1: two GPUs per switch, no
  // NIC. Every byte between node0's gpu2/gpu3 and the other node transits
  // node0's host_bridge0, whichever route or relay carries it.
  Topology node = make_node_from_shape("[g2,n1],[g2]|[g2],[g2]", {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 2, FabricKind::single_switch, 0, 1.0));
  Demand d(16);
  for (std::size_t s : {2, 3})
    for (std::size_t r : {8, 9, 10, 11}) d.set(s, r, 48e3), d.set(r, s, 48e3);
  // 768e3 bytes at its 24 GB/s: 32 us. Before it counted, the bound was
  // 16 us (switch1's up-link: 384e3 bytes per direction at 24 GB/s).
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "node0/host_bridge0 forwarding");
  CHECK(b.cut.bytes == 768e3);
  CHECK(b.time_us == doctest::Approx(32.0));
  SimOptions o;
  o.latency_us = 0;
  for (const Schedule& s : {fanout_schedule(t, d), spreadout_schedule(t, d), fast_schedule(t, d)})
    CHECK(simulate(t, s, o).time_us >= b.time_us * (1 - 1e-9));
}

TEST_CASE("AWS g6: the socket between every GPU and the NIC bounds, and the NIC cut counts the EFA alone") {
  ImportOptions io;
  Topology node = import_topology(std::string(VP_FIXTURES_DIR) + "/platforms/aws-g6-48xl.json", InputFormat::json, io);
  Topology t = expand_cluster(cluster_from_shortcut(node, 4, FabricKind::single_switch, 0, 1.0));
  const Demand d = uniform_demand(32, 1e6);
  // Each node sends and receives 24 x 8 MB: through its one EFA (100 Gb/s,
  // 12.5 GB/s, below its x16 link) 15.36 ms; the ENA (no GPUDirect RDMA)
  // carries no GPU traffic and does not count.
  const double nic_us = 24 * 8 * 1e6 / 12.5e3;
  // cpu0 is every GPU's only way to the NIC: it forwards all of a node's
  // inter-node bytes both ways, its cross-socket bytes, and those between
  // its own four GPUs (each on its own root port) -- 2 x 192 + 2 x 16 + 12
  // MB at its root-complex default (its fastest link, Gen4 x16: 24 GB/s):
  // 17.8 ms.
  LowerBound b = lower_bound(t, d, no_latency());
  CHECK(b.cut.name == "node0/cpu0 forwarding");
  CHECK(b.cut.bytes == doctest::Approx((2 * 192 + 2 * 16 + 12) * 1e6));
  CHECK(b.cut.gbps == 24.0);
  CHECK(b.time_us > nic_us);
  SimOptions o;
  o.latency_us = 0;
  const double fanout = simulate(t, fanout_schedule(t, d), o).time_us;
  CHECK(fanout >= b.time_us * (1 - 1e-9));
  CHECK(fanout <= b.time_us * 1.02);  // fan-out is within 2% of this bound (it read 2.55x before)
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
    CHECK(simulate(t, deepep_nvlink_style_schedule(t, d)).time_us >= bound);
  }
}

// ---- the route bound (route_bound.hpp) ---------------------------------------

TEST_CASE("the route bound: a switch's NIC link that the default routes crowd, where relays could go around") {
  // Two nodes of kServer on one switch. node0's gpu0 and gpu1 (both under
  // pcie_switch0, beside nic0) each send 60e3 bytes to each of node1's 8
  // GPUs: 960e3 bytes, and every one of them takes the default route
  // through the nearest NIC, nic0 (its PCIe link at 24 GB/s: 40 us).
  Topology node = make_node_from_shape(kServer, {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 2, FabricKind::single_switch, 0, 1.0));
  Demand d(16);
  for (std::size_t s : {0, 1})
    for (std::size_t r = 8; r < 16; ++r) d.set(s, r, 60e3);
  const LowerBound route = direct_route_bound(t, d, no_latency());
  CHECK(route.cut.name == "node0/pcie_switch0 -> node0/nic0 link");
  CHECK(route.cut.bytes == 960e3);
  CHECK(route.cut.gbps == 24.0);
  CHECK(route.time_us == doctest::Approx(40.0));
  // The graph bound lets a relay avoid nic0 (gpu0 -> gpu2 over PCIe, out
  // through nic1; or out through the root complex to another switch's
  // NIC): only each GPU's own up-link holds, 480e3 bytes at 24 GB/s, 20 us;
  // switch0's subtree sends its 960e3 bytes through its up-link and nic0's
  // network link (49 GB/s), node0's NICs through 4 x 24 GB/s.
  const LowerBound graph = lower_bound(t, d, no_latency());
  CHECK(graph.cut.name == "node0/gpu0 up-link");
  CHECK(graph.time_us == doctest::Approx(20.0));
  // Fan-out meets the route bound: 16 flows share nic0's PCIe link, 1.5
  // GB/s each, and nothing else is tighter.
  SimOptions o;
  o.latency_us = 0;
  o.completion_epsilon = 0;
  CHECK(simulate(t, fanout_schedule(t, d), o).time_us == doctest::Approx(40.0));
  // With the start-up latency, like the graph bound: one latency on top.
  CHECK(direct_route_bound(t, d).time_us == doctest::Approx(45.0));
}

TEST_CASE("the route bound charges a root complex its default routes transit") {
  // gpu0 (pcie_switch0) <-> gpu2 (pcie_switch1): both routes cross
  // host_bridge0, whose 24 GB/s forwarding carries both directions (the
  // links each carry one): 96e3 bytes, 4 us.
  Topology t = make_node_from_shape(kServer, {});
  Demand d(8);
  d.set(0, 2, 48e3);
  d.set(2, 0, 48e3);
  const LowerBound b = direct_route_bound(t, d, no_latency());
  CHECK(b.cut.name == "host_bridge0 forwarding");
  CHECK(b.cut.bytes == 96e3);
  CHECK(b.time_us == doctest::Approx(4.0));
}

TEST_CASE("the route bound is the simulated time of one transfer alone, on every fixture platform") {
  // One pair at a time: fan-out's single transfer runs at the smallest
  // capacity the simulator charges along its route, which is what the route
  // bound finds: the two agree on which resources a default route uses.
  SimOptions o;
  o.latency_us = 0;
  o.completion_epsilon = 0;
  for (const auto& [name, t] : fixture_platforms()) {
    CAPTURE(name);
    const std::size_t n = t.gpus.size();
    // Every pair of one node; in a cluster (nodes alike), from each GPU of
    // the first node to every third GPU, every local index and node reached.
    std::size_t first = 0;
    while (first < n && t.components[t.gpus[first]].node == t.components[t.gpus[0]].node) ++first;
    const std::size_t step = first < n ? 3 : 1;
    for (std::size_t s = 0; s < first; ++s) {
      for (std::size_t r = 0; r < n; ++r) {
        if (s == r || (r + s) % step != 0) continue;
        CAPTURE(s);
        CAPTURE(r);
        Demand d(n);
        d.set(s, r, 1e6);
        const LowerBound b = direct_route_bound(t, d, no_latency());
        CHECK(simulate(t, fanout_schedule(t, d), o).time_us == doctest::Approx(b.time_us).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("the route bound lies between the graph bound and every direct-route baseline, on every fixture platform") {
  const SimOptions ideal;
  const SimOptions contention = committed_contention();
  for_each_suite_case([&](const std::string&, const Topology& t, const std::string&, const Demand& d) {
    const LowerBound graph = lower_bound(t, d);
    const LowerBound route = direct_route_bound(t, d);
    CAPTURE(graph.cut.name);
    CAPTURE(route.cut.name);
    // A theorem for direct routes (route_bound.hpp).
    CHECK(route.time_us >= graph.time_us * (1 - 1e-12));
    for (const Schedule& s : {fanout_schedule(t, d), nccl_schedule(t, d), spreadout_schedule(t, d)}) {
      CHECK(simulate(t, s, ideal).time_us >= route.time_us * (1 - 1e-9));
      CHECK(simulate(t, s, contention).time_us >= route.time_us * (1 - 1e-9));
    }
  });
}

TEST_CASE("the route bound: an empty demand needs no time; a demand must fit; the latency must be valid") {
  Topology t = make_node_from_shape(kServer, {});
  const LowerBound b = direct_route_bound(t, Demand(8));
  CHECK(b.time_us == 0.0);
  CHECK(b.cut.name.empty());
  CHECK_THROWS_WITH_AS(direct_route_bound(t, Demand(4)), "demand: the demand is 4 x 4 but the topology has 8 GPUs",
                       InputError);
  BoundOptions bad;
  bad.latency_us = -1;
  CHECK_THROWS_WITH_AS(direct_route_bound(t, uniform_demand(8, 1), bad),
                       "direct_route_bound: latency_us must be finite and >= 0, got -1", vp::UsageError);
}
