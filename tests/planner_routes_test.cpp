// Global ids: the routes the planner emits, for every GPU pair and every NIC
// choice, equal the analyzer's on the Topology `vp-analyze topology --json`
// prints for the same input and cluster (vp::intra_node_route,
// vp::network_route, and vp::default_route for the nearest NICs); NIC
// preferences follow the catalog's local patterns.
#include <doctest/doctest.h>

#include <string>

#include "planner_support.hpp"

using namespace vp::plantest;

namespace {

vpcat::PlanTransfer transfer(std::uint32_t src, std::uint32_t dst, std::uint16_t i, std::uint16_t j, double gbps) {
  vpcat::PlanTransfer t;
  t.src = t.origin = src;
  t.dst = t.final = dst;
  t.bytes = 1;
  t.src_nic = i;
  t.dst_nic = j;
  t.solo_gbps = gbps;
  return t;
}

// NICs of the node of GPU g (local indexes).
std::uint32_t nics_of(const Platform& p, std::uint32_t g) {
  const std::int32_t node = p.topology.components[p.topology.gpus[g]].node;
  std::uint32_t k = 0;
  for (vp::ComponentId c : p.topology.nics) k += p.topology.components[c].node == node;
  return k;
}

void check_all_routes(const Platform& p, std::uint32_t stride) {
  const vp::Topology& t = p.topology;
  std::uint64_t checked = 0;
  for (std::uint32_t s = 0; s < p.gpus; s += 1) {
    for (std::uint32_t d = (s * 7) % stride; d < p.gpus; d += stride) {
      if (s == d) continue;
      const bool same = t.components[t.gpus[s]].node == t.components[t.gpus[d]].node;
      if (same) {
        const vpcat::PlanTransfer x = transfer(s, d, vpcat::kNoNic, vpcat::kNoNic, 0);
        const vp::Route mine = to_route(p, x), theirs = vp::intra_node_route(t, t.gpus[s], t.gpus[d]);
        INFO(p.name << " intra " << s << " -> " << d);
        CHECK(mine.links == theirs.links);
        CHECK(mine.forwarders == theirs.forwarders);
        ++checked;
        continue;
      }
      for (std::uint16_t i = 0; i < nics_of(p, s); ++i)
        for (std::uint16_t j = 0; j < nics_of(p, d); ++j) {
          const vpcat::PlanTransfer x = transfer(s, d, i, j, 0);
          const vp::Route mine = to_route(p, x), theirs = analyzer_route(p, x);
          INFO(p.name << " " << s << " -> " << d << " via NICs " << i << ", " << j);
          CHECK(mine.links == theirs.links);
          CHECK(mine.forwarders == theirs.forwarders);
          ++checked;
        }
    }
  }
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("routes equal the analyzer's: 4 nodes on one switch, every pair and NIC choice") {
  check_all_routes(platform("4n-switch"), 1);
}

TEST_CASE("routes equal the analyzer's: rails, leaf/spine, mixed node types") {
  check_all_routes(platform("3n-rail-tight"), 1);
  check_all_routes(platform("5n-leafspine-tight"), 1);
  check_all_routes(platform("mixed-4n"), 1);
  check_all_routes(platform("16n-rail"), 13);
  check_all_routes(platform("32n-leafspine"), 29);
}

TEST_CASE("a uniform one-port plan on 4 nodes uses the default routes, at their solo rates") {
  // With every NIC free, the planner's first choice is the nearest NIC on
  // both sides: vp::default_route.
  Platform& p = const_cast<Platform&>(platform("4n-switch"));
  const Matrix d = uniform(p.gpus, 1 << 20);
  vpcat::Plan plan;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), plan).ok());
  CHECK(plan.step(0).ports == 1);
  const vpcat::PlanTransfer* first = plan.step_transfers(0);
  std::uint32_t inter = 0;
  for (std::uint32_t k = 0; k < plan.step(0).count; ++k) {
    const vpcat::PlanTransfer& x = first[k];
    if (x.src_nic == vpcat::kNoNic) continue;
    ++inter;
    const vp::Route theirs = vp::default_route(p.topology, p.topology.gpus[x.src], p.topology.gpus[x.dst]);
    const vp::Route mine = to_route(p, x);
    INFO(x.src << " -> " << x.dst);
    CHECK(mine.links == theirs.links);
    CHECK(x.solo_gbps == doctest::Approx(theirs.solo_gbps));
  }
  CHECK(inter == 16);  // every NIC of every node busy in the first step
}

TEST_CASE("planner model: GPU and node counts, route bound") {
  const Platform& p = platform("mixed-4n");
  CHECK(p.planner.node_count() == 4);
  CHECK(p.planner.gpu_count() == p.topology.gpus.size());
  for (std::uint32_t g = 0; g < p.gpus; ++g)
    CHECK(p.planner.node_of_gpu(g) == static_cast<std::uint32_t>(p.topology.components[p.topology.gpus[g]].node));
  CHECK(p.planner.node_of_gpu(p.gpus) == vpcat::kNone);
  CHECK(p.planner.max_route_links() >= 4);
  // A transfer the planner cannot have produced has no route.
  std::uint64_t ids[64];
  CHECK(p.planner.route_links(transfer(0, 0, vpcat::kNoNic, vpcat::kNoNic, 1), ids, 64) == 0);
  CHECK(p.planner.route_links(transfer(0, p.gpus, vpcat::kNoNic, vpcat::kNoNic, 1), ids, 64) == 0);
  CHECK(p.planner.route_links(transfer(0, 1, 0, 0, 1), ids, 64) == 0);                      // same node through NICs
  CHECK(p.planner.route_links(transfer(0, p.gpus - 1, vpcat::kNoNic, vpcat::kNoNic, 1), ids, 64) == 0);  // across without
  CHECK(p.planner.route_links(transfer(0, p.gpus - 1, 99, 0, 1), ids, 64) == 0);             // no such NIC
  // A short buffer gets a prefix and the full count.
  const std::uint32_t full = p.planner.route_links(transfer(0, p.gpus - 1, 0, 0, 1), ids, 64);
  std::uint64_t two[2] = {0, 0};
  CHECK(p.planner.route_links(transfer(0, p.gpus - 1, 0, 0, 1), two, 2) == full);
  CHECK(two[0] == ids[0]);
  CHECK(two[1] == ids[1]);
}

TEST_CASE("NIC preferences follow the local patterns: the nearest NIC is in the most patterns") {
  // pcie-gen4-2s4sw8g: GPU 2k and 2k+1 share switch k with NIC k.
  const Platform& p = platform("4n-switch");
  for (std::uint32_t g = 0; g < 8; ++g) {
    const std::uint32_t near = g / 2;
    for (std::uint32_t k = 0; k < 4; ++k) {
      if (k == near) continue;
      INFO("gpu " << g << " nic " << k);
      CHECK(p.planner.nic_send_share(0, g, near) > p.planner.nic_send_share(0, g, k));
      CHECK(p.planner.nic_recv_share(0, g, near) > p.planner.nic_recv_share(0, g, k));
    }
    // Same socket beats the other socket.
    const std::uint32_t same_socket = near ^ 1u, other = near < 2 ? 2 : 0;
    CHECK(p.planner.nic_send_share(0, g, same_socket) > p.planner.nic_send_share(0, g, other));
  }
  // Symmetry: every GPU sees the same shares up to its position.
  CHECK(p.planner.nic_send_share(0, 0, 0) == doctest::Approx(p.planner.nic_send_share(0, 7, 3)));
}

TEST_CASE("with allow_shared, a balanced demand gets the shared step, a skewed one channel steps") {
  // Uniform on 4 nodes: one step with every payload on its default route,
  // each transfer naming its route's solo rate (no planned rate).
  Platform& p = const_cast<Platform&>(platform("4n-switch"));
  const Matrix d = uniform(p.gpus, 1 << 20);
  vpcat::Plan shared, channels;
  vpcat::PlanOptions o = channels_only();
  o.allow_shared = true;
  o.machine = vpcat::MachineModel::ideal();  // sharing loses nothing (under the calibrated table it loses)
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, shared).ok());
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), channels).ok());
  for (std::size_t i = 0; i < channels.step_count(); ++i) CHECK(channels.step(i).shared == 0);
  REQUIRE(shared.step_count() == 1);
  CHECK(shared.step(0).shared == 1);
  CHECK(shared.step(0).ports == p.gpus - 1);
  CHECK(shared.transfer_count() == std::size_t{p.gpus} * (p.gpus - 1));
  CHECK(shared.expected_us() < channels.expected_us());
  for (std::uint32_t k = 0; k < shared.step(0).count; ++k) {
    const vpcat::PlanTransfer& x = shared.step_transfers(0)[k];
    const vp::Route theirs = vp::default_route(p.topology, p.topology.gpus[x.src], p.topology.gpus[x.dst]);
    INFO(x.src << " -> " << x.dst);
    CHECK(to_route(p, x).links == theirs.links);
    CHECK(x.solo_gbps == doctest::Approx(theirs.solo_gbps));
  }
  // Zipf-skewed MoE traffic on 16 rails: the shared step's hot resources
  // would slow every transfer through them; channel steps win.
  Platform& q = const_cast<Platform&>(platform("16n-rail"));
  const Matrix z = zipf_moe(q.gpus, 1.0, 1, 4096);
  vpcat::Plan skewed;
  REQUIRE(q.planner.plan(vpcat::Demand::dense(z.data(), q.gpus), o, skewed).ok());
  CHECK(skewed.step_count() > 1);
  CHECK(skewed.step(0).shared == 0);
}
