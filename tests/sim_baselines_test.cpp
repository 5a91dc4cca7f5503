// The baselines: every byte delivered exactly once, through GPUs that hold
// it, and each schedule shaped as its source describes.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>

#include "vp/sim/baselines.hpp"
#include "vp/sim/birkhoff.hpp"
#include "vp/sim/check_schedule.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/synthetic.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

Topology cluster(std::uint32_t nodes) {
  Topology node = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  return expand_cluster(cluster_from_shortcut(node, nodes, FabricKind::single_switch, 0, 1.0));
}

std::vector<Demand> demands(std::size_t n) {
  MoeOptions moe;
  moe.tokens_per_gpu = 256;
  moe.zipf_exponent = 1.2;
  Demand sparse(n);  // a few pairs only, some across nodes, some inside
  sparse.set(0, n - 1, 3e6), sparse.set(1, 2, 5e5), sparse.set(n - 1, 3, 7.5e5);
  return {uniform_demand(n, 1e6), hot_spot_demand(n, 1e6, 3), moe_dispatch_demand(n, moe), sparse};
}

void check_delivers(const Topology& t, const Demand& d, const Schedule& s) {
  ScheduleCheck c = check_schedule(t, d, s);
  CHECK_MESSAGE(c.ok, c.message);
  SimResult r = simulate(t, s);
  for (std::size_t o = 0; o < d.size(); ++o)
    for (std::size_t f = 0; f < d.size(); ++f)
      if (o != f) CHECK(r.delivered.at(o, f) == doctest::Approx(d.at(o, f)).epsilon(1e-12));
}

std::size_t local(const Topology& t, ComponentId gpu) {
  return static_cast<std::size_t>(t.components[gpu].local_index);
}

}  // namespace

TEST_CASE("every baseline delivers every byte exactly once") {
  Topology t = cluster(4);
  for (const Demand& d : demands(t.gpus.size())) {
    SUBCASE("fan-out") { check_delivers(t, d, fanout_schedule(t, d)); }
    SUBCASE("SpreadOut") { check_delivers(t, d, spreadout_schedule(t, d)); }
    SUBCASE("FAST-like") { check_delivers(t, d, fast_schedule(t, d)); }
    SUBCASE("DeepEP NVLink-style") { check_delivers(t, d, deepep_nvlink_style_schedule(t, d)); }
    SUBCASE("DeepEP PCIe mode") { check_delivers(t, d, deepep_pcie_schedule(t, d)); }
    SUBCASE("NCCL") { check_delivers(t, d, nccl_schedule(t, d)); }
    SUBCASE("NCCL, one peer at a time") { check_delivers(t, d, nccl_schedule(t, d, NcclOptions{1})); }
    SUBCASE("FAST-like, always balancing") {
      FastOptions o;
      o.skip_cheap_balancing = false;
      check_delivers(t, d, fast_schedule(t, d, o));
    }
  }
}

TEST_CASE("fan-out is one step of direct transfers; SpreadOut is n-1 shifted permutations") {
  Topology t = cluster(2);
  const std::size_t n = t.gpus.size();
  Demand d = uniform_demand(n, 1e6);
  Schedule fan = fanout_schedule(t, d);
  REQUIRE(fan.steps.size() == 1);
  CHECK(fan.steps[0].flows.size() == n * (n - 1));
  Schedule spread = spreadout_schedule(t, d);
  REQUIRE(spread.steps.size() == n - 1);
  for (std::size_t k = 0; k < spread.steps.size(); ++k) {
    REQUIRE(spread.steps[k].flows.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      const Flow& f = spread.steps[k].flows[i];
      CHECK(f.src == t.gpus[i]);
      CHECK(f.dst == t.gpus[(i + k + 1) % n]);
    }
  }
}

TEST_CASE("NCCL's round order: node deltas outside, local deltas inside, each quadratic") {
  // NVIDIA/nccl src/init.cc: "Example sequence for 16 ranks: 0, 1, 3, 6, 10,
  // 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8".
  std::vector<std::size_t> locals;
  for (auto [nd, ld] : nccl_round_deltas(1, 16)) {
    CHECK(nd == 0);
    locals.push_back(ld);
  }
  CHECK(locals == std::vector<std::size_t>{0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8});
  // 3 nodes of 5 GPUs: deltas past the count are skipped (4 -> 0, 1, 3, 2).
  const auto r = nccl_round_deltas(3, 5);
  REQUIRE(r.size() == 15);
  CHECK(r[0] == std::pair<std::size_t, std::size_t>{0, 0});
  CHECK(r[1] == std::pair<std::size_t, std::size_t>{0, 1});
  CHECK(r[4] == std::pair<std::size_t, std::size_t>{0, 4});  // 0, 1, 3, 6->skip, 2, 7->skip, 5->skip, 4
  CHECK(r[5] == std::pair<std::size_t, std::size_t>{1, 0});
  CHECK(r[10] == std::pair<std::size_t, std::size_t>{2, 0});  // node deltas for 3: 0, 1, 3->skip, 2
}

TEST_CASE("NCCL runs its rounds in waves of the peers in flight, each round a permutation") {
  Topology t = cluster(2);  // 2 nodes x 8 GPUs: 16 rounds, round 0 the GPU itself
  const std::size_t n = t.gpus.size();
  Demand d = uniform_demand(n, 1e6);
  Schedule s = nccl_schedule(t, d);  // 8 rounds per wave: waves of 7 + 8 transfers per GPU
  REQUIRE(s.steps.size() == 2);
  CHECK(s.steps[0].flows.size() == 7 * n);
  CHECK(s.steps[1].flows.size() == 8 * n);
  // The first wave stays inside each node (node delta 0); the second crosses.
  for (const Flow& f : s.steps[0].flows) CHECK(t.components[f.src].node == t.components[f.dst].node);
  for (const Flow& f : s.steps[1].flows) CHECK(t.components[f.src].node != t.components[f.dst].node);
  // One peer in flight: 15 steps, each a permutation of the GPUs.
  Schedule one = nccl_schedule(t, d, NcclOptions{1});
  REQUIRE(one.steps.size() == n - 1);
  for (const Step& step : one.steps) {
    std::set<ComponentId> src, dst;
    for (const Flow& f : step.flows) src.insert(f.src), dst.insert(f.dst);
    CHECK(src.size() == n);
    CHECK(dst.size() == n);
  }
  CHECK_THROWS_AS(nccl_schedule(t, d, NcclOptions{0}), vp::UsageError);
}

TEST_CASE("DeepEP's PCIe mode sends every byte through the sender's and the receiver's NICs") {
  Topology t = cluster(2);
  Demand d(t.gpus.size());
  d.set(0, 2, 1e6);   // node0: gpu0 (switch0, nic0) -> gpu2 (switch1, nic1): nic0 -> switch0 -> nic1
  d.set(0, 1, 1e6);   // gpu0 -> gpu1, both on nic0: looped back by nic0
  d.set(1, 12, 1e6);  // across nodes: the default route
  Schedule s = deepep_pcie_schedule(t, d);
  REQUIRE(s.steps.size() == 1);
  REQUIRE(s.steps[0].flows.size() == 3);
  auto crosses_kind = [&](const Flow& f, ComponentKind kind) {
    for (LinkId l : f.route.links)
      if (t.components[t.links[l].dst].kind == kind) return true;
    return false;
  };
  for (const Flow& f : s.steps[0].flows) {
    CHECK(crosses_kind(f, ComponentKind::nic));
    CHECK(f.src == f.origin);
    CHECK(f.dst == f.final);
  }
  // Flows in (source, destination) order: gpu0 -> gpu1 first, looped back
  // by nic0 without the fabric; gpu0 -> gpu2 through the fabric switch;
  // neither through the root complex that the PCIe route would take.
  CHECK(!crosses_kind(s.steps[0].flows[0], ComponentKind::net_switch));
  CHECK(crosses_kind(s.steps[0].flows[1], ComponentKind::net_switch));
  CHECK(!crosses_kind(s.steps[0].flows[1], ComponentKind::host_bridge));
  CHECK(s.steps[0].flows[1].route.forwarders.empty());
  // One node without a fabric: nic0 loops gpu0 -> gpu2 back over PCIe.
  Topology one = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  Demand d1(8);
  d1.set(0, 2, 1e6);
  Schedule l = deepep_pcie_schedule(one, d1);
  REQUIRE(l.steps.size() == 1);
  CHECK(crosses_kind(l.steps[0].flows[0], ComponentKind::nic));
  check_delivers(one, d1, l);
  check_delivers(t, d, s);
}

TEST_CASE("FAST-like skips balancing where FAST's alpha-beta test says it does not pay") {
  Topology t = cluster(2);
  Demand d(t.gpus.size());
  d.set(0, 8, 8e3);  // 8 kB: 0.33 us of PCIe against 5 us start-ups: FAST sends it unbalanced
  Schedule s = fast_schedule(t, d);
  REQUIRE(s.steps.size() == 1);  // one scale-out, to gpu8 itself: no balancing, no forwarding
  CHECK(s.steps[0].flows.size() == 1);
  FastOptions always;
  always.skip_cheap_balancing = false;
  // balance (7 shifts), scale out, forward (7 shifts)
  CHECK(fast_schedule(t, d, always).steps.size() == 15);
  // Large enough, the same row is balanced (see the next test).
  d.set(0, 8, 8e6);
  CHECK(fast_schedule(t, d).steps.size() == 15);
}

TEST_CASE("FAST-like scales out between same-index GPUs and forwards inside nodes") {
  Topology t = cluster(4);
  MoeOptions moe;
  moe.tokens_per_gpu = 256;
  Demand d = moe_dispatch_demand(t.gpus.size(), moe);
  Schedule s = fast_schedule(t, d);
  bool scaled_out = false;  // the balancing rounds come before any scale-out
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    CAPTURE(k);
    std::set<std::pair<std::int32_t, std::int32_t>> server_pairs;
    for (const Flow& f : s.steps[k].flows)
      if (t.components[f.src].node != t.components[f.dst].node) scaled_out = true;
    for (const Flow& f : s.steps[k].flows) {
      std::int32_t a = t.components[f.src].node, b = t.components[f.dst].node;
      if (a != b) {
        CHECK(local(t, f.src) == local(t, f.dst));  // same-index scale-out
        server_pairs.insert({a, b});
      } else if (!scaled_out) {
        CHECK(f.origin == f.src);  // balancing hands over the sender's own bytes
      } else {
        // the intra-server all-to-all, or forwarding to the final GPU
        CHECK(f.dst == f.final);
        CHECK((f.origin == f.src) == (t.components[f.origin].node == a));
      }
    }
    std::set<std::int32_t> sources;  // one destination server per source server: a permutation
    for (auto [a, b] : server_pairs) CHECK(sources.insert(a).second);
  }
}

TEST_CASE("FAST-like balances skewed rows inside a server before scaling out") {
  Topology t = cluster(2);
  Demand d(t.gpus.size());
  d.set(0, 8, 8e6);  // only gpu0 of node0 has bytes for node1
  Schedule s = fast_schedule(t, d);
  // Steps 0-6 balance, one shift each: gpu0 hands 1e6 bytes to gpu k+1.
  REQUIRE(s.steps.size() == 15);
  for (std::size_t k = 0; k < 7; ++k) {
    REQUIRE(s.steps[k].flows.size() == 1);
    CHECK(s.steps[k].flows[0].dst == t.gpus[k + 1]);
    CHECK(s.steps[k].flows[0].bytes == doctest::Approx(1e6));
  }
  // Step 7: 8 same-index scale-out transfers of 1e6 bytes; steps 8-14: the
  // 7 forwards to gpu8, one shift each.
  CHECK(s.steps[7].flows.size() == 8);
  for (std::size_t k = 8; k < 15; ++k) {
    REQUIRE(s.steps[k].flows.size() == 1);
    CHECK(s.steps[k].flows[0].dst == t.gpus[8]);
  }
}

TEST_CASE("DeepEP-like sends to the same-index GPU of the target node and pipelines in chunks") {
  Topology t = cluster(2);
  Demand d(t.gpus.size());
  d.set(1, 12, 4e6);  // node0/gpu1 -> node1/gpu4: via node1/gpu1
  d.set(2, 3, 2e6);   // inside node0: direct
  DeepEpOptions o;
  o.chunks = 4;
  Schedule s = deepep_nvlink_style_schedule(t, d, o);
  REQUIRE(s.steps.size() == 5);
  auto count = [&](const Step& step, std::size_t src, std::size_t dst, double bytes) {
    std::size_t n = 0;
    for (const Flow& f : step.flows) n += f.src == t.gpus[src] && f.dst == t.gpus[dst] && f.bytes == bytes;
    return n;
  };
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(count(s.steps[k], 1, 9, 1e6) == (k < 4 ? 1u : 0u));    // chunk k over the network
    CHECK(count(s.steps[k], 2, 3, 5e5) == (k < 4 ? 1u : 0u));    // direct, inside node0
    CHECK(count(s.steps[k], 9, 12, 1e6) == (k > 0 ? 1u : 0u));   // chunk k-1 forwarded over PCIe
    CHECK(s.steps[k].flows.size() == std::vector<std::size_t>{2, 3, 3, 3, 1}[k]);
  }
}

TEST_CASE("DeepEP-like runs a demand that stays inside nodes as one direct step, FAST-like as shifts") {
  Topology t = cluster(2);
  Demand d(t.gpus.size());
  d.set(0, 5, 1e6), d.set(9, 8, 2e6);  // local shifts 5 and 7
  Schedule s = deepep_nvlink_style_schedule(t, d);
  REQUIRE(s.steps.size() == 1);
  CHECK(s.steps[0].flows.size() == 2);
  Schedule f = fast_schedule(t, d);
  REQUIRE(f.steps.size() == 2);
  CHECK(f.steps[0].flows.size() == 1);
  CHECK(f.steps[0].flows[0].dst == t.gpus[5]);
  CHECK(f.steps[1].flows[0].dst == t.gpus[8]);
}

// MangoBoost/FAST simulation/scheduler/config.cpp spread_out: the intra-
// server all-to-all is g-1 shifted permutations, not one fan-out step.
TEST_CASE("FAST-like on one node runs the all-to-all as g-1 shifted permutations") {
  Topology t = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  const std::size_t g = t.gpus.size();
  Demand d = uniform_demand(g, 1e6);
  Schedule s = fast_schedule(t, d);
  REQUIRE(s.steps.size() == g - 1);
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    CAPTURE(k);
    REQUIRE(s.steps[k].flows.size() == g);
    std::set<ComponentId> senders, receivers;
    for (const Flow& f : s.steps[k].flows) {
      CHECK((local(t, f.dst) + g - local(t, f.src)) % g == k + 1);  // shift k+1
      CHECK(senders.insert(f.src).second);
      CHECK(receivers.insert(f.dst).second);
    }
  }
  check_delivers(t, d, s);
}

// pipeline2: max(scale-out of stage t, forwarding of stage t-1 as shifts);
// the scale-out is split over the shifts by each shift's largest transfer.
TEST_CASE("FAST-like splits a stage's scale-out over the shifts it runs beside") {
  Topology t = cluster(2);
  Demand d(t.gpus.size());
  d.set(8, 1, 8e6);  // gpu8 -> gpu1: scale-out to gpu0 ... relayed (balanced first)
  d.set(0, 10, 4e6);
  Schedule s = fast_schedule(t, d);
  check_delivers(t, d, s);
  for (const Step& step : s.steps) {
    std::set<std::size_t> shifts;
    for (const Flow& f : step.flows)
      if (t.components[f.src].node == t.components[f.dst].node)
        shifts.insert((local(t, f.dst) + 8 - local(t, f.src)) % 8);
    CHECK(shifts.size() <= 1);  // one shift per step
  }
}

TEST_CASE("FAST-like and DeepEP-like need nodes with equal GPU counts") {
  ClusterSpec spec;
  spec.node_types = {{"four", make_node_from_shape("[g2,n1],[g2,n1]", {}), ""}, {"two", make_node_from_shape("[g2,n1]", {}), ""}};
  spec.nodes = {{"a", "four"}, {"b", "two"}};
  spec.fabric.kind = FabricKind::single_switch;
  Topology t = expand_cluster(spec);
  Demand d = uniform_demand(6, 1e3);
  CHECK_THROWS_WITH_AS(fast_schedule(t, d), "fast_schedule: every node needs the same number of GPUs (b has 2, a has 4)",
                       vp::UsageError);
  CHECK_THROWS_AS(deepep_nvlink_style_schedule(t, d), vp::UsageError);
  check_delivers(t, d, fanout_schedule(t, d));
  check_delivers(t, d, spreadout_schedule(t, d));
}

TEST_CASE("the schedule checker catches lost, duplicated and premature bytes") {
  Topology t = cluster(1);
  Demand d(8);
  d.set(0, 5, 1e6);
  Schedule ok = fanout_schedule(t, d);
  CHECK(check_schedule(t, d, ok).ok);
  Schedule twice = ok;
  twice.steps.push_back(ok.steps[0]);
  CHECK(check_schedule(t, d, twice).message ==
        "step 1: gpu0 sends 1e+06 bytes of gpu0 -> gpu5 it does not hold (holds 0)");
  CHECK(check_schedule(t, d, Schedule{}).message == "at the end gpu0 holds 1e+06 bytes of gpu0 -> gpu5, expected 0");
  // A relay that forwards in the step it receives.
  Flow first = ok.steps[0].flows[0];
  first.dst = t.gpus[1], first.route = intra_node_route(t, t.gpus[0], t.gpus[1]);
  Flow second{t.gpus[1], t.gpus[5], t.gpus[0], t.gpus[5], 1e6, intra_node_route(t, t.gpus[1], t.gpus[5])};
  CHECK(check_schedule(t, d, Schedule{{Step{{first, second}}}}).message ==
        "step 0: gpu1 sends 1e+06 bytes of gpu0 -> gpu5 it does not hold (holds 0)");
  CHECK(check_schedule(t, d, Schedule{{Step{{first}}, Step{{second}}}}).ok);
}

TEST_CASE("Birkhoff-von Neumann: padding reaches equal line sums and the permutations add up") {
  IntMatrix m{{0, 5, 1}, {2, 0, 0}, {1, 1, 0}};
  IntMatrix padded = pad_to_equal_sums(m);
  for (std::size_t i = 0; i < 3; ++i) {
    std::int64_t row = 0, col = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(padded[i][j] >= m[i][j]);
      row += padded[i][j], col += padded[j][i];
    }
    CHECK(row == 6);  // the largest line sum (row 0)
    CHECK(col == 6);
  }
  std::vector<Permutation> perms = birkhoff_decompose(padded);
  IntMatrix sum(3, std::vector<std::int64_t>(3, 0));
  for (std::size_t k = 0; k < perms.size(); ++k) {
    if (k > 0) CHECK(perms[k].weight <= perms[k - 1].weight);
    for (std::size_t i = 0; i < 3; ++i) sum[i][perms[k].to[i]] += perms[k].weight;
  }
  CHECK(sum == padded);
  CHECK_THROWS_AS(birkhoff_decompose(m), vp::InternalError);
}

// DeepEP's PCIe mode where DeepEP's code would not run: up to 32 ranks
// (docs/README_PCIe.md), IBGDA needs an mlx5 NIC (DeepEP issue 369, EFA),
// one NIC per GPU (README_PCIe.md's H20 platform).
TEST_CASE("DeepEP's PCIe mode is hypothetical beyond 32 ranks, without IBGDA or with GPUs sharing a NIC") {
  Topology own = make_node_from_shape("[g1,n1],[g1,n1]|[g1,n1],[g1,n1]", {});
  CHECK(deepep_pcie_hypothetical(own) == "");  // NIC of unknown make: the benefit of the doubt
  for (ComponentId n : own.nics) own.components[n].model = "ConnectX-7";
  CHECK(deepep_pcie_hypothetical(own) == "");
  for (ComponentId n : own.nics) own.components[n].pci_vendor = 0x15b3;
  CHECK(deepep_pcie_hypothetical(own) == "");
  Topology efa = own;
  efa.components[efa.nics[1]].pci_vendor = 0x1d0f, efa.components[efa.nics[1]].model = "EFA";
  CHECK(deepep_pcie_hypothetical(efa).find("(EFA) has no IBGDA") != std::string::npos);
  Topology efa_model = make_node_from_shape("[g1,n1],[g1,n1]", {});
  for (ComponentId n : efa_model.nics) efa_model.components[n].model = "EFA";
  CHECK(deepep_pcie_hypothetical(efa_model).find("has no IBGDA") != std::string::npos);
  Topology shared = make_node_from_shape("[g2,n1],[g2,n1]", {});
  CHECK(deepep_pcie_hypothetical(shared).find("DeepEP's PCIe mode runs with one NIC per GPU") != std::string::npos);
  Topology big = expand_cluster(cluster_from_shortcut(make_node_from_shape("[g1,n1],[g1,n1]|[g1,n1],[g1,n1]", {}), 9,
                                                      FabricKind::single_switch, 0, 1.0));
  REQUIRE(big.gpus.size() == 36);
  CHECK(deepep_pcie_hypothetical(big) == "36 ranks: DeepEP's PCIe mode runs up to 32 (docs/README_PCIe.md)");
  Topology eight = expand_cluster(cluster_from_shortcut(make_node_from_shape("[g1,n1],[g1,n1]|[g1,n1],[g1,n1]", {}),
                                                        8, FabricKind::single_switch, 0, 1.0));
  CHECK(deepep_pcie_hypothetical(eight) == "");  // 32 ranks: runs
  CHECK(deepep_nvlink_style_hypothetical() != "");
}

// NVIDIA/nccl src/graph/paths.cc ncclTopoCheckP2p: P2P up to PATH_PXB by
// default (PATH_SYS on AMD with at most 2 GPUs), else SHM through the host
// memory of the receiver's socket (src/transport/shm.cc, receiver side).
TEST_CASE("NCCL: P2P below a PCIe switch, host memory across host bridges and sockets") {
  Topology t = cluster(2);  // per node: socket0 {sw[g0,g1,n], sw[g2,g3,n]}, socket1 likewise
  const auto gpu = [&](std::size_t i) { return t.gpus[i]; };
  CHECK(nccl_transport(t, gpu(0), gpu(1)) == NcclTransport::p2p);  // PIX
  CHECK(nccl_transport(t, gpu(0), gpu(2)) == NcclTransport::shm);  // PHB: through the host bridge
  CHECK(nccl_transport(t, gpu(0), gpu(4)) == NcclTransport::shm);  // SYS
  CHECK(nccl_transport(t, gpu(0), gpu(8)) == NcclTransport::net);
  auto reaches = [&](const Route& r, ComponentKind kind) {
    for (LinkId l : r.links)
      if (t.components[t.links[l].dst].kind == kind) return true;
    return false;
  };
  auto uses_kind = [&](const Route& r, LinkKind kind) {
    for (LinkId l : r.links)
      if (t.links[l].kind == kind) return true;
    return false;
  };
  // gpu0 -> gpu2: up to the socket's memory and back down (CUDA P2P would
  // turn at the host bridge).
  const Route phb = nccl_host_memory_route(t, gpu(0), gpu(2));
  CHECK(reaches(phb, ComponentKind::cpu));
  CHECK(!reaches(intra_node_route(t, gpu(0), gpu(2)), ComponentKind::cpu));
  CHECK(t.links[phb.links.back()].dst == gpu(2));
  CHECK(!uses_kind(phb, LinkKind::inter_socket));
  // gpu0 -> gpu4: into socket1's memory over the inter-socket link.
  const Route sys = nccl_host_memory_route(t, gpu(0), gpu(4));
  CHECK(uses_kind(sys, LinkKind::inter_socket));
  CHECK(t.links[sys.links.back()].dst == gpu(4));
  // The schedule sends SHM pairs on that route, P2P pairs on the default one.
  Demand d(t.gpus.size());
  d.set(0, 1, 1e6), d.set(0, 2, 1e6), d.set(0, 4, 1e6);
  Schedule s = nccl_schedule(t, d);
  std::size_t seen = 0;
  for (const Step& step : s.steps)
    for (const Flow& f : step.flows) {
      ++seen;
      if (f.dst == gpu(1)) CHECK(f.route == intra_node_route(t, gpu(0), gpu(1)));
      if (f.dst == gpu(2)) CHECK(f.route == phb);
      if (f.dst == gpu(4)) CHECK(f.route == sys);
    }
  CHECK(seen == 3);
  check_delivers(t, d, s);
}

TEST_CASE("NCCL: P2P across host bridges and sockets on AMD nodes of at most 2 GPUs, not on Intel") {
  Topology amd = make_node_from_shape("g1|g1", {});
  CHECK(nccl_transport(amd, amd.gpus[0], amd.gpus[1]) == NcclTransport::p2p);  // SYS, allowed
  SyntheticOptions intel;
  intel.cpu_family = "intel";
  Topology xeon = make_node_from_shape("g1|g1", intel);
  CHECK(nccl_transport(xeon, xeon.gpus[0], xeon.gpus[1]) == NcclTransport::shm);
  Topology three = make_node_from_shape("g2|g1", {});
  CHECK(nccl_transport(three, three.gpus[0], three.gpus[1]) == NcclTransport::shm);  // PHB, 3 GPUs
}
