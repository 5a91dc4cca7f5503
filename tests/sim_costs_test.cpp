// vp-sim's costs beside the transfer (tools/vp-sim/costs.hpp): which
// scheduler exchanges what, the exchange as a schedule and its simulated
// time, and --planning-us.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "compare.hpp"  // kSchedulers
#include "costs.hpp"
#include "vp/base/errors.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;
using namespace vp::sim_cli;

namespace {

Topology cluster(std::uint32_t nodes) {
  Topology node = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  return expand_cluster(cluster_from_shortcut(node, nodes, FabricKind::single_switch, 0, 1.0));
}

// Per rank: the rows it holds after an allgather schedule.
std::vector<std::vector<bool>> rows_after(const Topology& t, const sim::Schedule& s) {
  const std::size_t n = t.gpus.size();
  auto rank = [&](ComponentId gpu) {
    return static_cast<std::size_t>(std::find(t.gpus.begin(), t.gpus.end(), gpu) - t.gpus.begin());
  };
  std::vector<std::vector<bool>> held(n, std::vector<bool>(n, false));
  for (std::size_t r = 0; r < n; ++r) held[r][r] = true;
  for (const sim::Step& step : s.steps) {
    std::vector<std::vector<bool>> next = held;
    for (const sim::Flow& f : step.flows) {
      // Bruck: the sender's first `blocks` rows from itself upwards.
      const std::size_t blocks = static_cast<std::size_t>(std::llround(f.bytes / (8.0 * static_cast<double>(n))));
      REQUIRE(rank(f.src) < n);
      REQUIRE(rank(f.dst) < n);
      for (std::size_t b = 0; b < blocks; ++b) next[rank(f.dst)][(rank(f.src) + b) % n] = true;
    }
    held = next;
  }
  return held;
}

}  // namespace

TEST_CASE("each scheduler's counts exchange is what its authors' code exchanges") {
  CHECK(counts_exchange("variopath") == CountsExchange::allgather);
  CHECK(counts_exchange("fast") == CountsExchange::allgather);
  CHECK(counts_exchange("deepep_nvlink_style") == CountsExchange::alltoall);
  CHECK(counts_exchange("deepep_pcie") == CountsExchange::alltoall);
  for (const char* name : {"fanout", "nccl", "spreadout"}) {
    CAPTURE(name);
    CHECK(counts_exchange(name) == CountsExchange::none);
    CHECK(!plans_online(name));
  }
  CHECK(plans_online("variopath"));
  CHECK(plans_online("fast"));
  CHECK(!plans_online("deepep_pcie"));
  for (const std::string& name : kSchedulers) CHECK_NOTHROW(counts_exchange(name));
}

TEST_CASE("the allgather is Bruck's: ceil(log2 n) steps, each rank sends once per step, every rank ends with every row") {
  for (std::uint32_t nodes : {1u, 2u, 3u}) {
    const Topology t = cluster(nodes);
    const std::size_t n = t.gpus.size();  // 8, 16, 24
    CAPTURE(n);
    const sim::Schedule s = counts_exchange_schedule(t, CountsExchange::allgather);
    CHECK(s.steps.size() == static_cast<std::size_t>(std::ceil(std::log2(static_cast<double>(n)))));
    double sent = 0;
    for (const sim::Step& step : s.steps) {
      CHECK(step.flows.size() == n);
      for (const sim::Flow& f : step.flows) sent += f.bytes;
    }
    CHECK(sent == doctest::Approx(static_cast<double>(n * (n - 1)) * 8.0 * static_cast<double>(n)));
    for (const std::vector<bool>& rows : rows_after(t, s))
      for (bool r : rows) CHECK(r);
  }
}

TEST_CASE("the exchanges' simulated times: a start-up per step plus their bytes; none costs nothing") {
  const Topology t = cluster(2);  // 16 GPUs: 4 allgather steps
  REQUIRE(t.gpus.size() == 16);
  sim::SimOptions o;
  o.latency_us = 20;
  const double all = counts_exchange_us(t, CountsExchange::allgather, o);
  CHECK(all > 4 * 20.0);
  CHECK(all < 4 * 20.0 + 5.0);  // messages of 128 bytes to 1 KiB
  const double one = counts_exchange_us(t, CountsExchange::alltoall, o);
  CHECK(one > 20.0);
  CHECK(one < 21.0);
  CHECK(counts_exchange_us(t, CountsExchange::none, o) == 0.0);
  CHECK(counts_exchange_schedule(t, CountsExchange::alltoall).steps.front().flows.size() == 16 * 15);
  o.latency_us = 0;
  CHECK(counts_exchange_us(t, CountsExchange::allgather, o) > 0.0);  // the bytes alone
}

TEST_CASE("--planning-us: measured or a budget in microseconds") {
  CHECK(parse_planning_charge("measured").measured);
  const PlanningCharge b = parse_planning_charge("250.5");
  CHECK(!b.measured);
  CHECK(b.budget_us == 250.5);
  CHECK(b.text() == "250.5");
  CHECK(parse_planning_charge("0").budget_us == 0.0);
  for (const char* bad : {"", "-1", "nan", "inf", "12us", "Measured", "1e10"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_planning_charge(bad), UsageError);
  }
}
