// The simulator on hand-computed cases, and its incremental max-min engine
// against a from-scratch recomputation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "vp/sim/prng.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/synthetic.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

Flow flow(const Topology& t, ComponentId src, ComponentId dst, double bytes) {
  return Flow{src, dst, src, dst, bytes, intra_node_route(t, src, dst)};
}

SimOptions latency(double us, double epsilon = 0.0) {
  SimOptions o;
  o.latency_us = us;
  o.completion_epsilon = epsilon;
  return o;
}

// The same with a barrier between steps: what the step-structure cases
// below pin (sim_sync_test.cpp has the rank-synchronised ones).
SimOptions barrier(double us) {
  SimOptions o = latency(us);
  o.sync = SyncMode::barrier;
  return o;
}

// One socket, one host bridge, three switches, every link 1000 GB/s except
// a's link to switch0, switch0's and switch1's links to the host bridge and
// f's link to switch2, given in GB/s.
struct Chain {
  Topology t;
  ComponentId a, b, c, d, e, f, g;  // a, c, d under switch0; b, g under switch1; e, f under switch2
};

Chain chain_topology(double a_link, double sw0_up, double sw1_up, double f_link) {
  Chain c;
  Topology& t = c.t;
  t.nodes.push_back(NodeInfo{"node0", "chain"});
  auto cap = [](double gbps) { return Capacity{gbps, CapacitySource::input, "test"}; };
  auto child = [&](ComponentKind kind, ComponentId parent, double gbps) {
    ComponentId x = t.add_component(kind, 0);
    t.components[x].parent = parent;
    t.add_duplex_link(x, parent, LinkKind::pcie, cap(gbps));
    return x;
  };
  ComponentId cpu = t.add_component(ComponentKind::cpu, 0);
  ComponentId hb = child(ComponentKind::host_bridge, cpu, 1000);
  ComponentId sw0 = child(ComponentKind::pcie_switch, hb, sw0_up);
  ComponentId sw1 = child(ComponentKind::pcie_switch, hb, sw1_up);
  ComponentId sw2 = child(ComponentKind::pcie_switch, hb, 1000);
  ComponentId a = child(ComponentKind::gpu, sw0, a_link), cc = child(ComponentKind::gpu, sw0, 1000),
              d = child(ComponentKind::gpu, sw0, 1000), b = child(ComponentKind::gpu, sw1, 1000),
              g = child(ComponentKind::gpu, sw1, 1000), e = child(ComponentKind::gpu, sw2, 1000),
              f = child(ComponentKind::gpu, sw2, f_link);
  finalize(t, "chain");  // not canonicalized: keep the ids above
  c.a = a, c.b = b, c.c = cc, c.d = d, c.e = e, c.f = f, c.g = g;
  return c;
}

// "[g2],[g2]": two switches under one host bridge, 24 GB/s links; the host
// bridge forwards at `factor` x 24 GB/s.
Topology two_switches(double factor) {
  SyntheticOptions o;
  o.defaults.set("root_complex_p2p_factor", factor, "test");
  return make_node_from_shape("[g2],[g2]", o);
}

// ---- a from-scratch reference: full progressive filling at every event ----

double reference_makespan(const Topology& t, const Step& step) {
  struct Active {
    std::vector<std::size_t> res;
    double left;
  };
  std::map<std::size_t, double> cap;  // resource -> bytes/us
  std::vector<Active> flows;
  for (const Flow& f : step.flows) {
    Active a{{}, f.bytes};
    for (LinkId l : f.route.links) a.res.push_back(l), cap[l] = t.links[l].capacity.gbps * 1e3;
    for (ComponentId c : f.route.forwarders) {
      std::size_t r = t.links.size() + c;
      if (std::find(a.res.begin(), a.res.end(), r) == a.res.end()) a.res.push_back(r);
      cap[r] = t.components[c].forward->gbps * 1e3;
    }
    flows.push_back(a);
  }
  double now = 0.0;
  for (;;) {
    std::vector<std::size_t> live;
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (flows[i].left > 0) live.push_back(i);
    if (live.empty()) return now;
    std::map<std::size_t, double> room = cap;
    std::vector<double> rate(flows.size(), -1.0);
    std::size_t fixed = 0;
    while (fixed < live.size()) {
      std::map<std::size_t, int> users;
      for (std::size_t i : live)
        if (rate[i] < 0)
          for (std::size_t r : flows[i].res) ++users[r];
      double best = std::numeric_limits<double>::infinity();
      std::size_t bottleneck = 0;
      for (auto [r, n] : users)
        if (room[r] / n < best) best = room[r] / n, bottleneck = r;
      for (std::size_t i : live) {
        if (rate[i] >= 0 || std::find(flows[i].res.begin(), flows[i].res.end(), bottleneck) == flows[i].res.end())
          continue;
        rate[i] = best;
        ++fixed;
        for (std::size_t r : flows[i].res) room[r] -= best;
      }
    }
    double dt = std::numeric_limits<double>::infinity();
    for (std::size_t i : live) dt = std::min(dt, flows[i].left / rate[i]);
    now += dt;
    for (std::size_t i : live) {
      flows[i].left -= rate[i] * dt;
      if (flows[i].left <= 1e-9 * rate[i] * now) flows[i].left = 0;
    }
  }
}

}  // namespace

TEST_CASE("two flows on one link share it equally") {
  Topology t = make_node_from_shape("[g3]", {});  // 24 GB/s links under one switch
  Schedule s{{Step{{flow(t, t.gpus[0], t.gpus[2], 120e3), flow(t, t.gpus[1], t.gpus[2], 120e3)}}}};
  // switch -> gpu2 carries both: 12 GB/s = 12e3 bytes/us each, 10 us.
  SimResult r = simulate(t, s, latency(5));
  CHECK(r.time_us == doctest::Approx(15.0));
  CHECK(r.transfers == 2);
}

TEST_CASE("each receiver's last arrival: per GPU, over steps, with and without port arbitration") {
  Topology t = make_node_from_shape("[g4]", {});  // 24 GB/s links under one switch
  // Step 0: gpu0 -> gpu1 48e3 bytes and gpu2 -> gpu3 24e3 bytes, disjoint
  // links: 2 us and 1 us after a 5 us latency. Step 1: gpu1 -> gpu0 24e3.
  Schedule s{{Step{{flow(t, t.gpus[0], t.gpus[1], 48e3), flow(t, t.gpus[2], t.gpus[3], 24e3)}},
              Step{{flow(t, t.gpus[1], t.gpus[0], 24e3)}}}};
  for (bool arbitrate : {false, true}) {
    SimOptions o = latency(5);
    o.contention.enabled = arbitrate;
    o.contention.port_arbitration = arbitrate;
    o.contention.forwarder.on = o.contention.nic.on = o.contention.chunk_on = false;
    SimResult r = simulate(t, s, o);
    REQUIRE(r.arrival_us.size() == 4);
    CHECK(r.arrival_us[1] == doctest::Approx(7.0));
    CHECK(r.arrival_us[3] == doctest::Approx(6.0));
    CHECK(r.arrival_us[0] == doctest::Approx(7.0 + 6.0));  // step 1 starts when step 0 ends
    CHECK(r.arrival_us[2] == 0.0);                         // receives nothing
  }
}

TEST_CASE("a long flow over a three-link chain against one short flow per link") {
  Chain c = chain_topology(10, 20, 30, 1000);
  const Topology& t = c.t;
  Schedule s{{Step{{flow(t, c.a, c.b, 200e3),    // links of 10, 20, 30 GB/s
                    flow(t, c.a, c.c, 50e3),     // the 10 GB/s link only
                    flow(t, c.d, c.e, 300e3),    // the 20 GB/s link only
                    flow(t, c.f, c.g, 500e3)}}}};  // the 30 GB/s link only
  // 0-10 us: long 5, on 10-link 5, 20-link 15, 30-link 25 (GB/s); the
  // 10-link flow ends. 10-22.5 us: long 10 (its 10-link alone), the 20-link
  // flow falls to 10, the 30-link flow rises to 20 and ends. 22.5-25 us: long
  // and the 20-link flow, both 25e3 bytes left at 10 GB/s, end together.
  SimResult r = simulate(t, s, latency(0));
  CHECK(r.time_us == doctest::Approx(25.0));
  CHECK(r.events == 4);  // start, 10 us, 22.5 us, 25 us (the last two end in one event)
}

TEST_CASE("a forwarding capacity caps the flows that transit the component") {
  Topology t = two_switches(0.25);  // host bridge forwards 6 GB/s
  Schedule s{{Step{{flow(t, t.gpus[0], t.gpus[2], 30e3), flow(t, t.gpus[1], t.gpus[3], 30e3)}}}};
  REQUIRE(s.steps[0].flows[0].route.forwarders.size() == 1);
  // 3 GB/s each through the host bridge: 10 us.
  CHECK(simulate(t, s, latency(0)).time_us == doctest::Approx(10.0));
}

TEST_CASE("max-min: a flow bottlenecked elsewhere leaves the rest of the shared link to the other") {
  Topology t = two_switches(0.125);  // host bridge forwards 3 GB/s
  // gpu0 -> gpu2 is capped at 3 GB/s by the host bridge; gpu0 -> gpu1 shares
  // gpu0's 24 GB/s up-link with it and gets the other 21 GB/s.
  Schedule s{{Step{{flow(t, t.gpus[0], t.gpus[2], 30e3), flow(t, t.gpus[0], t.gpus[1], 210e3)}}}};
  SimResult r = simulate(t, s, latency(0));
  CHECK(r.time_us == doctest::Approx(10.0));  // both end at 10 us: 30e3/3e3 and 210e3/21e3
  CHECK(r.events == 2);
}

TEST_CASE("a flow that speeds up can slow down a faster flow bottlenecked elsewhere") {
  Chain c = chain_topology(10, 1000, 13, 7);
  const Topology& t = c.t;
  // a -> c and a -> b share a's 10 GB/s link: 5 GB/s each. f -> g is held
  // at 7 GB/s by f's link; it shares switch1's 13 GB/s down-link with a -> b
  // (5 + 7 < 13). When a -> c ends at 10 us, a -> b would take 6 GB/s of
  // that link, below f -> g's 7: max-min gives both 6.5 GB/s instead, and
  // both end at 20 us (65e3 bytes left each).
  Step step{{flow(t, c.a, c.c, 50e3), flow(t, c.a, c.b, 115e3), flow(t, c.f, c.g, 135e3)}};
  CHECK(simulate(t, Schedule{{step}}, latency(0)).time_us == doctest::Approx(20.0));
  CHECK(reference_makespan(t, step) == doctest::Approx(20.0));
}

TEST_CASE("every transfer of a step pays the start-up latency once") {
  Topology t = make_node_from_shape("[g2]", {});
  Schedule s{{Step{{flow(t, t.gpus[0], t.gpus[1], 24e3), flow(t, t.gpus[1], t.gpus[0], 48e3)}}}};
  CHECK(simulate(t, s, latency(0)).time_us == doctest::Approx(2.0));
  CHECK(simulate(t, s, latency(7)).time_us == doctest::Approx(9.0));
  Schedule empty_bytes{{Step{{flow(t, t.gpus[0], t.gpus[1], 0.0)}}, Step{}}};
  SimResult r = simulate(t, empty_bytes, barrier(7));
  CHECK(r.step_us == std::vector<double>{7.0, 0.0});
}

TEST_CASE("steps run one after the other; relayed bytes count once, at their final destination") {
  Topology t = make_node_from_shape("[g3]", {});
  ComponentId g0 = t.gpus[0], g1 = t.gpus[1], g2 = t.gpus[2];
  Flow relay = flow(t, g0, g1, 48e3);
  relay.final = g2;  // g0's bytes for g2, first to g1
  Flow hop = flow(t, g1, g2, 48e3);
  hop.origin = g0;
  Schedule s{{Step{{relay, flow(t, g2, g0, 24e3)}}, Step{{hop}}}};
  SimResult r = simulate(t, s, barrier(1));
  CHECK(r.step_us[0] == doctest::Approx(3.0));  // 48e3 bytes at 24 GB/s, plus 1 us
  CHECK(r.step_us[1] == doctest::Approx(3.0));
  CHECK(r.time_us == doctest::Approx(6.0));
  CHECK(r.delivered.at(0, 2) == 48e3);
  CHECK(r.delivered.at(0, 1) == 0.0);
  CHECK(r.delivered.at(2, 0) == 24e3);
}

TEST_CASE("flows of a step with the same endpoints and route are one transfer") {
  Topology t = make_node_from_shape("[g3]", {});
  Flow a = flow(t, t.gpus[0], t.gpus[2], 24e3), b = a, other = flow(t, t.gpus[1], t.gpus[2], 48e3);
  b.origin = t.gpus[1];  // a relayed payload on the same connection
  SimResult r = simulate(t, Schedule{{Step{{a, b, other}}}}, latency(0));
  CHECK(r.transfers == 2);
  // Two connections of 48e3 bytes share switch -> gpu2 equally: 4 us.
  CHECK(r.time_us == doctest::Approx(4.0));
}

TEST_CASE("malformed flows are rejected with the step and flow named") {
  Topology t = make_node_from_shape("[g3]", {});
  Flow f = flow(t, t.gpus[0], t.gpus[1], 1e3);
  f.dst = t.gpus[2];
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{{Step{}, Step{{f}}}}),
                       "simulate: step 1 flow 0: the route does not lead from gpu0 to gpu2", vp::InternalError);
  Flow neg = flow(t, t.gpus[0], t.gpus[1], -1);
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{{Step{{neg}}}}), "simulate: step 0 flow 0: bytes must be finite and >= 0, got -1",
                       vp::InternalError);
  Flow loop = flow(t, t.gpus[0], t.gpus[1], 1e3);  // gpu0 > switch > gpu1 > switch > gpu1
  loop.route.links.push_back(t.find_link(t.gpus[1], t.switches[0]));
  loop.route.links.push_back(t.find_link(t.switches[0], t.gpus[1]));
  CHECK_THROWS_WITH_AS(simulate(t, Schedule{{Step{{loop}}}}), "simulate: step 0 flow 0: the route crosses a link twice",
                       vp::InternalError);
  Flow nic = flow(t, t.gpus[0], t.gpus[1], 1e3);
  nic.src = t.switches[0];
  CHECK_THROWS_AS(simulate(t, Schedule{{Step{{nic}}}}), vp::InternalError);
}

namespace {
// Random steps on a node where forwarders bind too: every GPU sends to most
// others, sizes spread over three orders of magnitude.
std::vector<Step> random_steps(const Topology& t, int count) {
  Prng rng(42);
  const auto n = t.gpus.size();
  std::vector<Step> steps(static_cast<std::size_t>(count));
  for (Step& step : steps)
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t d = 0; d < n; ++d)
        if (s != d && rng.uniform() >= 0.3)
          step.flows.push_back(flow(t, t.gpus[s], t.gpus[d], std::floor(1e3 * std::pow(1e3, rng.uniform()))));
  return steps;
}

Topology slow_root_complex_node() {
  SyntheticOptions o;
  o.defaults.set("root_complex_p2p_factor", 0.4, "test");
  return make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1],g1", o);
}
}  // namespace

TEST_CASE("the incremental engine matches a from-scratch recomputation on random steps") {
  Topology t = slow_root_complex_node();
  int trial = 0;
  for (const Step& step : random_steps(t, 30)) {
    CAPTURE(trial++);
    CHECK(simulate(t, Schedule{{step}}, latency(0)).time_us ==
          doctest::Approx(reference_makespan(t, step)).epsilon(1e-9));
  }
}

TEST_CASE("batched completions need fewer events and stay within epsilon of the exact simulation") {
  Topology t = slow_root_complex_node();
  int trial = 0;
  std::size_t exact_events = 0, batched_events = 0;
  for (const Step& step : random_steps(t, 10)) {
    CAPTURE(trial++);
    SimResult exact = simulate(t, Schedule{{step}}, latency(0));
    SimResult batched = simulate(t, Schedule{{step}}, latency(0, 1e-2));
    exact_events += exact.events;
    batched_events += batched.events;
    CHECK(batched.time_us == doctest::Approx(exact.time_us).epsilon(1e-2));
  }
  CHECK(batched_events < exact_events);
}
