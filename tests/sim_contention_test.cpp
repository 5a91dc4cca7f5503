// The contention model (vp/sim/contention.hpp): it charges only contention,
// the ideal model stays bit for bit what it was, and its table is read and
// checked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "contention_file.hpp"
#include "fluid.hpp"
#include "step_problem.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/prng.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/synthetic.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

// Every mechanism on, at the given strength.
ContentionModel all_on(double slope, double floor, double overhead_us) {
  ContentionModel m;
  m.enabled = true;
  m.forwarder = EfficiencyCurve{true, slope, floor};
  m.nic = EfficiencyCurve{true, slope, floor};
  m.endpoint = EfficiencyCurve{true, slope, floor};
  m.reads = true;  // the endpoint curve charges reads only
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

// `nodes` nodes of two sockets, two switches each, a GPU pair and a NIC
// per switch, on one fabric switch.
Topology two_socket_cluster(std::uint32_t nodes) {
  const Topology node = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  return expand_cluster(cluster_from_shortcut(node, nodes, FabricKind::single_switch, 0, 1.0));
}

// A Zipf-1.2 MoE dispatch over t's GPUs.
Demand skewed_moe(const Topology& t) {
  MoeOptions moe;
  moe.tokens_per_gpu = 256;
  moe.zipf_exponent = 1.2;
  return moe_dispatch_demand(t.gpus.size(), moe);
}

detail::FluidProblem with_degradation(detail::FluidProblem p, double slope, double floor, double chunk_factor) {
  p.degradation.assign(p.capacity.size(), detail::Degradation{slope, floor, chunk_factor});
  return p;
}

// p with a random ingress port (one of `ports`) on every entry of the
// resources below `shared`, none on the others.
detail::FluidProblem with_random_ports(detail::FluidProblem p, Prng& rng, std::uint32_t shared, std::uint32_t ports) {
  p.port.clear();
  for (std::uint32_t r : p.resources)
    p.port.push_back(r < shared ? 1000 + static_cast<std::uint32_t>(rng.below(ports)) : detail::kNoPort);
  return p;
}

// Transfers over `shared` oversubscribed resources of 10..100 bytes/us, each
// on a random non-empty subset of them and on a private link of 1..100.
detail::FluidProblem random_problem(Prng& rng, std::size_t transfers, std::uint32_t shared) {
  detail::FluidProblem p;
  for (std::uint32_t r = 0; r < shared; ++r) p.capacity.push_back(10.0 + 90.0 * rng.uniform());
  for (std::size_t f = 0; f < transfers; ++f) {
    std::vector<std::uint32_t> res;
    for (std::uint32_t r = 0; r < shared; ++r)
      if (rng.uniform() < 0.5) res.push_back(r);
    if (res.empty()) res.push_back(static_cast<std::uint32_t>(rng.below(shared)));
    res.push_back(static_cast<std::uint32_t>(p.capacity.size()));
    p.capacity.push_back(1.0 + 99.0 * rng.uniform());
    p.add_transfer(std::floor(1e3 * std::pow(1e3, rng.uniform())), res);
  }
  return p;
}

// The two-level max-min characterization: every resource within its
// capacity, and every transfer crosses a saturated resource r where it is
// among the fastest -- of its port when r arbitrates (two or more ports
// among r's transfers), its port then carrying at least as much as any
// other port of r; of all r's transfers otherwise. `tol`: relative slack
// of the comparisons (the engine settles port levels to 1e-4 of the
// resource's capacity).
void check_two_level(const detail::FluidProblem& p, const std::vector<double>& rate, double tol = 2e-3) {
  const std::size_t nr = p.capacity.size();
  std::vector<double> load(nr, 0.0);
  std::vector<std::map<std::uint32_t, double>> port_load(nr), port_fastest(nr);
  std::vector<double> fastest(nr, 0.0);
  auto port_at = [&](std::uint32_t i) { return p.port.empty() ? detail::kNoPort : p.port[i]; };
  for (std::uint32_t f = 0; f < p.transfers(); ++f) {
    REQUIRE(rate[f] > 0.0);
    for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) {
      const std::uint32_t r = p.resources[i];
      load[r] += rate[f];
      fastest[r] = std::max(fastest[r], rate[f]);
      port_load[r][port_at(i)] += rate[f];
      double& top = port_fastest[r][port_at(i)];
      top = std::max(top, rate[f]);
    }
  }
  for (std::size_t r = 0; r < nr; ++r) CHECK(load[r] <= p.capacity[r] * (1 + 1e-9));
  for (std::uint32_t f = 0; f < p.transfers(); ++f) {
    bool bottlenecked = false;
    for (std::uint32_t i = p.first[f]; i < p.first[f + 1] && !bottlenecked; ++i) {
      const std::uint32_t r = p.resources[i];
      if (load[r] < p.capacity[r] * (1 - tol)) continue;
      if (port_load[r].size() < 2) {
        bottlenecked = rate[f] >= fastest[r] * (1 - tol);
        continue;
      }
      const std::uint32_t g = port_at(i);
      bool port_largest = true;
      for (auto [other, carried] : port_load[r]) port_largest &= port_load[r][g] >= carried * (1 - tol);
      bottlenecked = port_largest && rate[f] >= port_fastest[r][g] * (1 - tol);
    }
    CAPTURE(f);
    CHECK(bottlenecked);
  }
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
  const Topology t = two_socket_cluster(4);
  const Demand d = skewed_moe(t);
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
  const Topology t = two_socket_cluster(2);
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
                       vp::UsageError);
  o.contention = all_on(0, 0, 0);
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{}, o), "contention: forwarder.floor must be in (0, 1], got 0",
                       vp::UsageError);
  o.contention = all_on(0, 1, -2);
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{}, o), "contention: chunk.overhead_us must be finite and >= 0, got -2",
                       vp::UsageError);
}

TEST_CASE("the committed contention table reads, and every parameter has its source") {
  const ContentionModel m = sim_cli::read_contention_file(VP_CONTENTION_TABLE);
  CHECK(m.enabled);
  CHECK(m.forwarder.on);
  CHECK(m.forwarder.floor == doctest::Approx(2.0 / 18).epsilon(0.01));  // docs/design.md §8: 18 -> 2 GB/s
  CHECK(m.chunk_bytes == 131072);                                       // NCCL's P2P chunk size
  CHECK_FALSE(m.port_arbitration);  // off for its cost; docs/evaluation.md sweeps it
  CHECK(m.endpoint.on);             // fitted on p2pmark's dense all-read
  REQUIRE(m.forwarder_families.size() == 1);
  CHECK(m.forwarder_families[0].match == "AMD EPYC");
  CHECK_FALSE(m.reads);  // a property of the traffic, not of the table: vp-sim --transfers
  CHECK_NOTHROW(check_contention_model(m));
  CHECK_THROWS_WITH_AS(sim_cli::read_contention_file("/nonexistent/t.json"), "/nonexistent/t.json: cannot read the file (No such file or directory)",
                       InputError);
}

TEST_CASE("port arbitration shares a resource among its ports first, then among each port's transfers") {
  // Resource 0 (12 bytes/us) is reached through port A by transfer 0 (60
  // bytes, also limited to 6 by its own link 1) and through port B by three
  // transfers of 20 bytes. Per transfer, all four run at 3 until B's end at
  // 6.67 us; transfer 0 then has 40 bytes left at 6: 13.33 us. By port, A
  // gets 6 and B's transfers 2 each: everything ends at 10 us.
  detail::FluidProblem p;
  p.capacity = {12.0, 6.0};
  p.add_transfer(60.0, {0, 1}, {7, detail::kNoPort});
  for (int k = 0; k < 3; ++k) p.add_transfer(20.0, {0}, {8});
  detail::FluidProblem flat = p;
  flat.port.clear();
  CHECK(detail::run_fluid(flat, 0.0).makespan_us == doctest::Approx(40.0 / 3));
  CHECK(detail::run_fluid_arbitrated(p, 0.0).makespan_us == doctest::Approx(10.0));
  const std::vector<double> rate = detail::arbitrated_rates(p).rate;
  CHECK(rate[0] == doctest::Approx(6.0));
  for (int k = 1; k <= 3; ++k) CHECK(rate[k] == doctest::Approx(2.0));
  // One port only: per transfer.
  for (auto& port : p.port) port = port == detail::kNoPort ? port : 9;
  CHECK(detail::run_fluid_arbitrated(p, 0.0).makespan_us == doctest::Approx(40.0 / 3));
}

TEST_CASE("port arbitration's rates are two-level max-min fair on the steps of PCIe trees") {
  // Real steps: ports where PCIe arbitrates, on trees of switches, host
  // bridges and sockets. The baselines' steps of random sparse demands.
  Prng rng(17);
  ContentionModel m;
  m.enabled = true;
  m.port_arbitration = true;
  std::size_t problems = 0, arbitrating = 0, unsettled = 0;
  for (const char* shape : {"[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", "[g4,n1],[g4,n1]", "[g2],[g2],[g2]|[g2],[g2]"}) {
    Topology node = make_node_from_shape(shape, {});
    for (std::uint32_t nodes : {1u, 2u}) {
      if (nodes > 1 && node.nics.empty()) continue;
      Topology t = nodes == 1 ? node : expand_cluster(cluster_from_shortcut(node, nodes, FabricKind::single_switch, 0, 1.0));
      const std::size_t n = t.gpus.size();
      for (int trial = 0; trial < 12; ++trial) {
        CAPTURE(shape);
        CAPTURE(nodes);
        CAPTURE(trial);
        Demand d(n);
        for (std::size_t s = 0; s < n; ++s)
          for (std::size_t r = 0; r < n; ++r)
            if (s != r && rng.uniform() < 0.4) d.add(s, r, std::floor(1e3 * std::pow(1e3, rng.uniform())));
        for (const Schedule& sched : {fanout_schedule(t, d), nccl_schedule(t, d)}) {
          if (sched.steps.empty()) continue;
          const detail::FluidProblem p = detail::step_problem(t, sched.steps.front(), m);
          if (p.transfers() == 0) continue;
          ++problems;
          const detail::ArbitratedRates a = detail::arbitrated_rates(p);
          if (!a.settled) {
            ++unsettled;
            continue;
          }
          check_two_level(p, a.rate);
          detail::FluidProblem flat = p;
          flat.port.clear();
          arbitrating += detail::arbitrated_rates(flat).rate != a.rate;
        }
      }
    }
  }
  CHECK(problems > 100);
  CHECK(arbitrating > problems / 10);  // port sharing differs from per-transfer sharing on many of them
  // The fixed point is not proven to settle (src/arbitration.cpp): a few
  // first events here (2-node clusters) do not within the round limit.
  CHECK(unsettled <= problems / 20);
}

TEST_CASE("port arbitration's rates are feasible on any problem, and two-level max-min fair where they settle") {
  // Ports drawn at random, not from a tree: the fixed point may not settle
  // within the round limit (FluidOutcome::unsettled); rates stay feasible.
  Prng rng(11);
  int settled = 0;
  for (int trial = 0; trial < 60; ++trial) {
    CAPTURE(trial);
    const std::uint32_t shared = 1 + trial % 5;
    const detail::FluidProblem p = with_random_ports(random_problem(rng, 2 + trial % 23, shared), rng, shared, 1 + trial % 4);
    const detail::ArbitratedRates a = detail::arbitrated_rates(p);
    std::vector<double> load(p.capacity.size(), 0.0);
    for (std::uint32_t f = 0; f < p.transfers(); ++f)
      for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) load[p.resources[i]] += a.rate[f];
    for (std::size_t r = 0; r < load.size(); ++r) CHECK(load[r] <= p.capacity[r] * (1 + 1e-9));
    if (a.settled) ++settled, check_two_level(p, a.rate);
    // Without ports: the per-transfer engine's allocation and times.
    detail::FluidProblem none = p;
    none.port.assign(p.resources.size(), detail::kNoPort);
    check_two_level(none, detail::arbitrated_rates(none).rate);
    detail::FluidProblem flat = p;
    flat.port.clear();
    CHECK(detail::run_fluid_arbitrated(none, 0.0).makespan_us ==
          doctest::Approx(detail::run_fluid(flat, 0.0).makespan_us).epsilon(1e-9));
  }
  CHECK(settled >= 50);
}

TEST_CASE("port arbitration leaves a step contention-free at solo rates at its ideal time") {
  Prng rng(13);
  for (int trial = 0; trial < 40; ++trial) {
    CAPTURE(trial);
    const auto shared = static_cast<std::uint32_t>(1 + trial % 4);
    const detail::FluidProblem p = contention_free_problem(rng, 2 + trial % 9, shared);
    const double ideal = detail::run_fluid(p, 0.0).makespan_us;
    const detail::FluidProblem ported = with_random_ports(p, rng, shared, 1 + trial % 3);
    for (double slope : {0.0, 100.0})
      for (double chunk : {1.0, 0.001})
        CHECK(detail::run_fluid_arbitrated(with_degradation(ported, slope, 0.01, chunk), 0.0).makespan_us ==
              doctest::Approx(ideal).epsilon(1e-12));
  }
}

TEST_CASE("with port arbitration every schedule stays above the bound and delivers every byte") {
  const Topology t = two_socket_cluster(2);
  const Demand d = skewed_moe(t);
  SimOptions arbitration;
  arbitration.contention.enabled = true;
  arbitration.contention.port_arbitration = true;
  const double bound = lower_bound(t, d).time_us;
  for (const Schedule& s : {fanout_schedule(t, d), spreadout_schedule(t, d), nccl_schedule(t, d), fast_schedule(t, d)}) {
    const SimResult a = simulate(t, s, arbitration), ideal = simulate(t, s);
    CHECK(a.time_us >= bound * (1 - 1e-9));
    CHECK(a.delivered.total() == doctest::Approx(ideal.delivered.total()));
  }
}

TEST_CASE("forwarder efficiency takes the curve of the socket's CPU family, else the default one") {
  // Two sockets of two GPUs: fan-out sends half of every GPU's bytes across
  // the sockets, so both root complexes and the inter-socket path carry
  // more than their capacity at solo rates.
  Topology t = make_node_from_shape("[g2]|[g2]", {});
  for (Component& c : t.components)
    if (c.kind == ComponentKind::cpu) c.model = "AMD EPYC 7763 64-Core Processor";
  const Demand d = uniform_demand(4, 1e6);
  const Schedule s = fanout_schedule(t, d);
  SimOptions o;
  o.contention.enabled = true;
  o.contention.forwarder = EfficiencyCurve{true, 0.0, 1.0};  // default: no loss
  const double plain = simulate(t, s, o).time_us;
  CHECK(plain == simulate(t, s).time_us);
  o.contention.forwarder_families = {{"Intel", 5.0, 0.01}};  // another family: the default curve
  CHECK(simulate(t, s, o).time_us == plain);
  o.contention.forwarder_families = {{"Intel", 0.0, 1.0}, {"AMD EPYC", 5.0, 0.01}};  // the first match
  CHECK(simulate(t, s, o).time_us > 1.5 * plain);
  o.contention.forwarder.on = false;  // the mechanism's switch holds for its families
  CHECK(simulate(t, s, o).time_us == plain);
  o.contention.forwarder.on = true;
  o.contention.forwarder_families = {{"", 1.0, 0.5}};
  CHECK_THROWS_WITH_AS(simulate(t, s, o), "contention: forwarder.families: a family needs a non-empty match",
                       vp::UsageError);
}

TEST_CASE("the GPU endpoint curve charges a GPU serving several readers, and only reads") {
  // One switch of four GPUs, no CPU in the paths: every GPU sends to all
  // three others at once (p2pmark's dense pattern), so each GPU's upstream
  // link carries three transfers whose solo rates add up to three times
  // its capacity.
  Topology t = make_node_from_shape("[g4]", {});
  const Demand d = uniform_demand(4, 1e8);
  const Schedule dense = fanout_schedule(t, d);
  SimOptions o;
  o.contention.enabled = true;
  o.contention.endpoint = EfficiencyCurve{true, 0.5, 0.1};  // eta(3) = 1 / (1 + 0.5 x 2) = 0.5
  const double ideal = simulate(t, dense).time_us;
  CHECK(simulate(t, dense, o).time_us == ideal);  // writes (the default) do not pay it
  o.contention.reads = true;
  const double read = simulate(t, dense, o).time_us - o.latency_us;
  CHECK(read == doctest::Approx((ideal - o.latency_us) / 0.5).epsilon(1e-3));
  o.contention.endpoint.on = false;  // the mechanism's switch
  CHECK(simulate(t, dense, o).time_us == ideal);
  // One reader per GPU (a shift: GPU i sends to i+1) is not charged.
  o.contention.endpoint.on = true;
  Demand shift(4);
  for (std::size_t i = 0; i < 4; ++i) shift.add(i, (i + 1) % 4, 1e8);
  const Schedule one = fanout_schedule(t, shift);
  o.contention.reads = true;
  CHECK(simulate(t, one, o).time_us == simulate(t, one).time_us);
}
