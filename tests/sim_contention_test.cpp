// The contention model (vp/sim/contention.hpp): it charges only contention,
// the ideal model stays bit for bit what it was, and its table is read and
// checked.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "contention_file.hpp"
#include "fluid.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/prng.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

// Every mechanism on, at the given strength.
ContentionModel all_on(double slope, double floor, double overhead_us) {
  ContentionModel m;
  m.enabled = true;
  m.forwarder = EfficiencyCurve{true, slope, floor};
  m.nic = EfficiencyCurve{true, slope, floor};
  m.chunk_on = true;
  m.chunk_bytes = 131072;
  m.chunk_overhead_us = overhead_us;
  return m;
}

std::vector<ContentionModel> settings() {
  std::vector<ContentionModel> out;
  for (double slope : {0.0, 0.05, 1.0, 100.0})
    for (double floor : {1.0, 0.5, 0.01})
      for (double overhead : {0.0, 0.5, 50.0}) out.push_back(all_on(slope, floor, overhead));
  return out;
}

// A random fluid problem that is contention-free at solo rates: every
// transfer has a private bottleneck link of its own rate, and each shared
// resource has at least the sum of the solo rates of its users (times a
// random slack >= 1, sometimes exactly 1), so transfers share resources
// (k >= 2) without any of them being oversubscribed.
detail::FluidProblem contention_free_problem(Prng& rng, std::size_t transfers, std::size_t shared) {
  detail::FluidProblem p;
  p.capacity.assign(shared, 0.0);
  std::vector<std::vector<std::uint32_t>> routes(transfers);
  std::vector<double> solo(transfers);
  for (std::size_t f = 0; f < transfers; ++f) {
    solo[f] = 1.0 + 99.0 * rng.uniform();
    for (std::uint32_t r = 0; r < shared; ++r)
      if (rng.uniform() < 0.5) routes[f].push_back(r);
  }
  for (std::uint32_t r = 0; r < shared; ++r) {
    double sum = 0.0;
    for (std::size_t f = 0; f < transfers; ++f)
      for (std::uint32_t x : routes[f]) sum += x == r ? solo[f] : 0.0;
    p.capacity[r] = std::max(1.0, sum * (rng.uniform() < 0.3 ? 1.0 : 1.0 + rng.uniform()));
  }
  for (std::size_t f = 0; f < transfers; ++f) {
    routes[f].push_back(static_cast<std::uint32_t>(p.capacity.size()));
    p.capacity.push_back(solo[f]);
    p.add_transfer(std::floor(1e3 * std::pow(1e3, rng.uniform())), routes[f]);
  }
  return p;
}

detail::FluidProblem with_degradation(detail::FluidProblem p, double slope, double floor, double chunk_factor) {
  p.degradation.assign(p.capacity.size(), detail::Degradation{slope, floor, chunk_factor});
  return p;
}

}  // namespace

TEST_CASE("a step contention-free at solo rates runs at exactly its ideal time under every setting") {
  Prng rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    CAPTURE(trial);
    const detail::FluidProblem p = contention_free_problem(rng, 2 + trial % 9, 1 + trial % 4);
    const double ideal = detail::run_fluid(p, 0.0).makespan_us;
    for (double slope : {0.0, 0.3, 100.0})
      for (double floor : {1.0, 0.01})
        for (double chunk : {1.0, 0.5, 0.001}) {
          CHECK(detail::run_fluid(with_degradation(p, slope, floor, chunk), 0.0).makespan_us == ideal);
          CHECK(detail::run_fluid(with_degradation(p, slope, floor, chunk), 1e-4).makespan_us ==
                detail::run_fluid(p, 1e-4).makespan_us);
        }
  }
}

TEST_CASE("an oversubscribed resource is charged, more the stronger the setting") {
  // Two transfers of 100 bytes, each alone at 10 bytes/us, share a resource
  // of 10: ideal 20 us.
  detail::FluidProblem p;
  p.capacity = {10.0};
  p.add_transfer(100.0, {0});
  p.add_transfer(100.0, {0});
  CHECK(detail::run_fluid(p, 0.0).makespan_us == doctest::Approx(20.0));
  // slope 1: eta(2) = 1/2 while both run: 40 us.
  CHECK(detail::run_fluid(with_degradation(p, 1.0, 0.01, 1.0), 0.0).makespan_us == doctest::Approx(40.0));
  // floor 0.8 holds it at 25 us; chunk factor 0.5 alone: 40 us.
  CHECK(detail::run_fluid(with_degradation(p, 1.0, 0.8, 1.0), 0.0).makespan_us == doctest::Approx(25.0));
  CHECK(detail::run_fluid(with_degradation(p, 0.0, 1.0, 0.5), 0.0).makespan_us == doctest::Approx(40.0));
  // Unequal sizes: once the short one ends the long one runs alone, at full rate.
  detail::FluidProblem q;
  q.capacity = {10.0};
  q.add_transfer(50.0, {0});
  q.add_transfer(150.0, {0});
  // Both at 2.5 (eta 1/2) until the first ends at 20 us with 100 left of
  // the second: alone at 10, 10 us more.
  CHECK(detail::run_fluid(with_degradation(q, 1.0, 0.01, 1.0), 0.0).makespan_us == doctest::Approx(30.0));
}

TEST_CASE("the ideal model, and the contention model with every mechanism off, are bit for bit the same") {
  Topology node = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 4, FabricKind::single_switch, 0, 1.0));
  MoeOptions moe;
  moe.tokens_per_gpu = 256;
  moe.zipf_exponent = 1.2;
  const Demand d = moe_dispatch_demand(32, moe);
  SimOptions off;
  off.contention.enabled = true;  // mechanisms all off
  for (const Schedule& s : {fanout_schedule(t, d), nccl_schedule(t, d), fast_schedule(t, d), deepep_pcie_schedule(t, d)}) {
    const SimResult a = simulate(t, s), b = simulate(t, s, off);
    CHECK(a.time_us == b.time_us);
    CHECK(a.step_us == b.step_us);
    CHECK(a.events == b.events);
  }
}

TEST_CASE("under contention no schedule gets faster, and fan-out on a shared root complex gets slower") {
  Topology node = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  Topology t = expand_cluster(cluster_from_shortcut(node, 2, FabricKind::single_switch, 0, 1.0));
  const Demand d = uniform_demand(16, 1e6);
  for (const ContentionModel& m : settings()) {
    SimOptions o;
    o.contention = m;
    for (const Schedule& s : {fanout_schedule(t, d), spreadout_schedule(t, d), nccl_schedule(t, d)})
      CHECK(simulate(t, s, o).time_us >= simulate(t, s).time_us * (1 - 1e-12));
  }
  SimOptions strong;
  strong.contention = all_on(0.5, 0.1, 0.0);
  CHECK(simulate(t, fanout_schedule(t, d), strong).time_us > 1.05 * simulate(t, fanout_schedule(t, d)).time_us);
}

TEST_CASE("out-of-range contention parameters are refused, naming the field") {
  Topology t = make_node_from_shape("[g2]", {});
  SimOptions o;
  o.contention = all_on(-1, 0.5, 0);
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{}, o), "contention: forwarder.slope must be finite and >= 0, got -1",
                       std::invalid_argument);
  o.contention = all_on(0, 0, 0);
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{}, o), "contention: forwarder.floor must be in (0, 1], got 0",
                       std::invalid_argument);
  o.contention = all_on(0, 1, -2);
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{}, o), "contention: chunk.overhead_us must be finite and >= 0, got -2",
                       std::invalid_argument);
}

TEST_CASE("the committed contention table reads, and every parameter has its source") {
  const ContentionModel m = sim_cli::read_contention_file(VP_CONTENTION_TABLE);
  CHECK(m.enabled);
  CHECK(m.forwarder.on);
  CHECK(m.forwarder.floor == doctest::Approx(2.0 / 18).epsilon(0.01));  // docs/design.md §8: 18 -> 2 GB/s
  CHECK(m.chunk_bytes == 131072);                                       // NCCL's P2P chunk size
  CHECK_NOTHROW(check_contention_model(m));
  CHECK_THROWS_WITH_AS(sim_cli::read_contention_file("/nonexistent/t.json"), "/nonexistent/t.json: cannot read the file (No such file or directory)",
                       InputError);
}
