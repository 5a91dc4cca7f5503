// The flow bound (flow_bound.hpp): hand-computed cases, its relation to the
// cut bound, and that no schedule beats it.
#include <doctest/doctest.h>

#include "sim_platforms.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/flow_bound.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/route_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/synthetic.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;
using vp::sim::test::committed_contention;
using vp::sim::test::for_each_suite_case;
using vp::sim::test::no_latency;

namespace {

double share_sum(const FlowBound& f) {
  double sum = 0;
  for (const FlowBoundShare& s : f.binding) sum += s.share;
  return sum;
}

}  // namespace

TEST_CASE("the flow bound splits a switch's bytes over its NIC and its up-link, where the default route cannot") {
  // Two nodes of the evaluation server on one switch; node0's gpu0 and gpu1
  // (under pcie_switch0, beside nic0) each send 60e3 bytes to each of
  // node1's 8 GPUs. The default routes all take nic0's 24 GB/s PCIe link:
  // 40 us. Over every route, half can leave through the switch's 24 GB/s
  // up-link, the root complex (24 GB/s) and another switch's NIC: 960e3
  // bytes over 48 GB/s, 20 us -- also each GPU's own link, 480e3 at 24.
  Topology node = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 2, FabricKind::single_switch, 0, 1.0));
  Demand d(16);
  for (std::size_t s : {0, 1})
    for (std::size_t r = 8; r < 16; ++r) d.set(s, r, 60e3);
  CHECK(direct_route_bound(t, d, no_latency()).time_us == doctest::Approx(40.0));
  const FlowBound f = flow_bound(t, d, no_latency());
  CHECK(f.time_us == doctest::Approx(20.0).epsilon(1e-9));
  CHECK(lower_bound(t, d, no_latency()).time_us == doctest::Approx(20.0));
  CHECK(flow_bound(t, d).time_us == doctest::Approx(25.0).epsilon(1e-9));  // one 5 us start-up latency
  // The fractional cut, as the solver's duals give it (not renormalised):
  // all of it kept, its shares sum to 1 by duality.
  REQUIRE_FALSE(f.binding.empty());
  REQUIRE(f.binding.size() < 8);
  CHECK(share_sum(f) == doctest::Approx(1.0).epsilon(1e-6));

  // A GPU's forwarding capacity bounds nothing: a byte it relays is two
  // transfers with the GPU at an end, which the simulator does not charge.
  Topology relays = t;
  for (ComponentId g : relays.gpus) relays.components[g].forward = Capacity{0.001, CapacitySource::input, "test"};
  CHECK(flow_bound(relays, d, no_latency()).time_us == doctest::Approx(20.0).epsilon(1e-9));
  CHECK(lower_bound(relays, d, no_latency()).time_us == doctest::Approx(20.0));  // nor in the cut bound
}

TEST_CASE("the flow bound sees a NIC's slower PCIe link where the cut bound counts its network link") {
  // As above with three GPUs under pcie_switch0, each sending 40e3 bytes to
  // each of node1's GPUs: 960e3 bytes leave the switch. The cut bound's
  // switch subtree counts what leaves the set {switch0, its GPUs, nic0}:
  // the 24 GB/s up-link and nic0's 25 GB/s network link, 960e3 / 49 = 19.59
  // us. But every byte through nic0 first crosses its 24 GB/s PCIe link, so
  // over every route the switch sends at most 24 + 24 GB/s: 20 us.
  Topology node = make_node_from_shape("[g3,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 2, FabricKind::single_switch, 0, 1.0));
  REQUIRE(t.gpus.size() == 18);
  Demand d(18);
  for (std::size_t s : {0, 1, 2})
    for (std::size_t r = 9; r < 18; ++r) d.set(s, r, 960e3 / 27);
  const LowerBound cut = lower_bound(t, d, no_latency());
  CHECK(cut.cut.name == "node0/pcie_switch0 subtree out");
  CHECK(cut.time_us == doctest::Approx(960e3 / 49e3));
  const FlowBound f = flow_bound(t, d, no_latency());
  CHECK(f.time_us == doctest::Approx(20.0).epsilon(1e-9));
  // Its fractional cut: the switch's up-link and nic0's PCIe link, or the
  // equivalents a degenerate program's dual may pick; all of it kept.
  REQUIRE_FALSE(f.binding.empty());
  CAPTURE(f.binding.front().resource);
  REQUIRE(f.binding.size() < 8);
  CHECK(share_sum(f) == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("the flow bound is at least the cut bound and at most every schedule, on every fixture platform") {
  const SimOptions ideal;
  const SimOptions contention = committed_contention();
  for_each_suite_case([&](const std::string& name, const Topology& t, const std::string&, const Demand& d) {
    const LowerBound cut = lower_bound(t, d);
    const FlowBound flow = flow_bound(t, d);
    CAPTURE(cut.cut.name);
    CAPTURE(flow.time_us);
    // Every cut examined is implied by the program (flow_bound.hpp).
    CHECK(flow.time_us >= cut.time_us * (1 - 1e-9));
    // The kept part of the fractional cut: all of it when under 8.
    CHECK(share_sum(flow) <= 1.0 + 1e-6);
    if (flow.binding.size() < 8) CHECK(share_sum(flow) == doctest::Approx(1.0).epsilon(1e-6));
    // On one PCIe tree the two are equal: every link and forwarder is
    // one of the subtree or forwarder cuts. Not on MI300X: its xGMI links
    // join the GPUs beside the PCIe tree.
    if (t.nodes.size() == 1 && name != "mi300x") CHECK(flow.time_us == doctest::Approx(cut.time_us).epsilon(1e-9));
    const std::vector<std::pair<const char*, Schedule>> schedules{
        {"fanout", fanout_schedule(t, d)},
        {"nccl", nccl_schedule(t, d)},
        {"spreadout", spreadout_schedule(t, d)},
        {"fast", fast_schedule(t, d)},
        {"deepep_nvlink_style", deepep_nvlink_style_schedule(t, d)},
        {"deepep_pcie", deepep_pcie_schedule(t, d)}};
    for (const auto& [scheduler, s] : schedules) {
      CAPTURE(scheduler);
      CHECK(simulate(t, s, ideal).time_us >= flow.time_us * (1 - 1e-9));
    }
    CHECK(simulate(t, schedules.front().second, contention).time_us >= flow.time_us * (1 - 1e-9));
  });
}

TEST_CASE("the flow bound: an empty demand, a demand that does not fit, a bad latency, too many GPUs") {
  Topology t = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  const FlowBound empty = flow_bound(t, Demand(8));
  CHECK(empty.time_us == 0.0);
  CHECK(empty.binding.empty());
  CHECK_THROWS_WITH_AS(flow_bound(t, Demand(4)), "demand: the demand is 4 x 4 but the topology has 8 GPUs", InputError);
  BoundOptions bad;
  bad.latency_us = -1;
  CHECK_THROWS_WITH_AS(flow_bound(t, uniform_demand(8, 1), bad),
                       "flow_bound: latency_us must be finite and >= 0, got -1", vp::UsageError);
  Topology big = expand_cluster(cluster_from_shortcut(t, 9, FabricKind::single_switch, 0, 1.0));
  CHECK_THROWS_WITH_AS(flow_bound(big, uniform_demand(72, 1)),
                       "flow_bound: 72 GPUs, more than the 64 this linear program is offered for",
                       vp::UsageError);
}
