// How the simulator follows a schedule's steps: per rank, as the MPI
// executor (SyncMode::rank), against a barrier between steps
// (SyncMode::barrier); and the fluid engine with transfers that start while
// others run, against its from-scratch counterpart.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "fluid.hpp"
#include "vp/base/errors.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/prng.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

Flow flow(const Topology& t, ComponentId src, ComponentId dst, double bytes) {
  return Flow{src, dst, src, dst, bytes, intra_node_route(t, src, dst)};
}

SimOptions options(SyncMode sync, double latency_us, double epsilon = 0.0, EagerMode eager = EagerMode::off,
                   double eager_bytes = 65536.0) {
  SimOptions o;
  o.sync = sync;
  o.latency_us = latency_us;
  o.completion_epsilon = epsilon;
  o.eager = eager;
  o.eager_bytes = eager_bytes;
  return o;
}

Topology slow_root_complex_node() {
  SyntheticOptions o;
  o.defaults.set("root_complex_p2p_factor", 0.4, "test");
  return make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1],g1", o);
}

// Random schedules: each step a random subset of pairs, sizes over three
// orders of magnitude; every pair at most once per step.
std::vector<Schedule> random_schedules(const Topology& t, int count, int steps) {
  Prng rng(7);
  const auto n = t.gpus.size();
  std::vector<Schedule> out(static_cast<std::size_t>(count));
  for (Schedule& s : out) {
    s.steps.resize(static_cast<std::size_t>(steps));
    for (Step& step : s.steps)
      for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b)
          if (a != b && rng.uniform() >= 0.7)
            step.flows.push_back(flow(t, t.gpus[a], t.gpus[b], std::floor(1e3 * std::pow(1e3, rng.uniform()))));
  }
  return out;
}

// A from-scratch reference of the rank mode, written from its definition: a
// flow of step s starts, after the latency, once every flow of an earlier
// step sharing a rank with it has finished; at every event the rates are
// recomputed by a full progressive filling. Flows are not merged (the
// schedules above have one flow per pair and step). With eager sends, a
// rank does not wait for a flow it sends below `eager_bytes`, and with
// EagerMode::eager such a flow waits only for its sender.
double reference_rank_makespan(const Topology& t, const Schedule& schedule, double latency,
                               EagerMode eager = EagerMode::off, double eager_bytes = 0.0) {
  struct F {
    std::size_t step;
    ComponentId src, dst;
    std::vector<std::size_t> res;
    double left, start = std::numeric_limits<double>::infinity();
    bool done = false;
    bool small = false;
  };
  std::map<std::size_t, double> cap;
  std::vector<F> flows;
  for (std::size_t s = 0; s < schedule.steps.size(); ++s)
    for (const Flow& f : schedule.steps[s].flows) {
      F x{s, f.src, f.dst, {}, f.bytes};
      x.small = eager != EagerMode::off && f.bytes < eager_bytes && f.src != f.dst;
      for (LinkId l : f.route.links) x.res.push_back(l), cap[l] = t.links[l].capacity.gbps * 1e3;
      for (std::size_t i = 0; i + 1 < f.route.links.size(); ++i) {
        const ComponentId mid = t.links[f.route.links[i]].dst;
        if (!t.components[mid].forward) continue;
        x.res.push_back(t.links.size() + mid);
        cap[t.links.size() + mid] = t.components[mid].forward->gbps * 1e3;
      }
      flows.push_back(x);
    }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double now = 0.0;
  for (;;) {
    for (F& f : flows) {  // posts
      if (f.start < kInf) continue;
      // Rank r has reached f's step once every flow of an earlier step it
      // waits for is done; f needs its sender there, and its receiver too
      // unless it moves eagerly.
      auto waits = [](const F& g, ComponentId r) { return g.dst == r || (g.src == r && !g.small); };
      bool ready = true;
      for (const F& g : flows)
        if (g.step < f.step && !g.done &&
            (waits(g, f.src) || (waits(g, f.dst) && !(f.small && eager == EagerMode::eager))))
          ready = false;
      if (ready) f.start = now + latency;
    }
    std::vector<std::size_t> live;
    double next_start = kInf;
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (flows[i].done) continue;
      if (flows[i].start <= now) live.push_back(i);
      else next_start = std::min(next_start, flows[i].start);
    }
    if (live.empty() && next_start == kInf) return now;
    std::map<std::size_t, double> room = cap;
    std::vector<double> rate(flows.size(), -1.0);
    std::size_t fixed = 0;
    while (fixed < live.size()) {
      std::map<std::size_t, int> users;
      for (std::size_t i : live)
        if (rate[i] < 0)
          for (std::size_t r : flows[i].res) ++users[r];
      double best = kInf;
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
    double dt = next_start - now;
    for (std::size_t i : live) dt = std::min(dt, flows[i].left / rate[i]);
    now += dt;
    for (std::size_t i : live) {
      flows[i].left -= rate[i] * dt;
      if (flows[i].left <= 1e-9 * rate[i] * now) flows[i].done = true;
    }
  }
}

}  // namespace

TEST_CASE("rank sync: two disjoint pairs with unequal steps do not wait for each other") {
  Topology t = make_node_from_shape("[g4]", {});  // 24 GB/s links under one switch
  const auto& g = t.gpus;
  // Pair (0, 1) moves 48e3 then 24e3 bytes (2 us, 1 us), pair (2, 3) 24e3
  // then 48e3 (1 us, 2 us); latency 5 us. A barrier charges each step its
  // slower pair: (5 + 2) + (5 + 2) = 14 us. Per rank, each pair runs its
  // own steps back to back: 5 + 2 + 5 + 1 = 13 us.
  Schedule s{{Step{{flow(t, g[0], g[1], 48e3), flow(t, g[2], g[3], 24e3)}},
              Step{{flow(t, g[0], g[1], 24e3), flow(t, g[2], g[3], 48e3)}}}};
  SimResult barrier = simulate(t, s, options(SyncMode::barrier, 5));
  SimResult rank = simulate(t, s, options(SyncMode::rank, 5));
  CHECK(barrier.time_us == doctest::Approx(14.0));
  CHECK(rank.time_us == doctest::Approx(13.0));
  CHECK(barrier.step_us == std::vector<double>{7.0, 7.0});
  // Step 0 spans 0 .. 7 us; step 1 is first posted at 6 us (pair (2, 3))
  // and ends at 13 us.
  REQUIRE(rank.step_us.size() == 2);
  CHECK(rank.step_us[0] == doctest::Approx(7.0));
  CHECK(rank.step_us[1] == doctest::Approx(7.0));
  CHECK(rank.arrival_us[1] == doctest::Approx(13.0));
  CHECK(rank.arrival_us[3] == doctest::Approx(13.0));
  CHECK(rank.rank_finish_us == std::vector<double>{13.0, 13.0, 13.0, 13.0});
  CHECK(barrier.rank_finish_us[2] == doctest::Approx(14.0));
}

TEST_CASE("rank sync: a relay waits for its previous step; a rank without flows in a step passes through") {
  Topology t = make_node_from_shape("[g4]", {});
  const auto& g = t.gpus;
  // Step 0: 0 -> 1 96e3 bytes (4 us) carries payload for 2; 2 -> 3 24e3 (1 us).
  // Step 1: relay 1 -> 2 of those 96e3 bytes: 1 is ready at 9 us, 2 at
  // 6 us; the hop starts at 9 + 5 and ends at 18 us.
  // Step 2: 3 -> 0 24e3: 3 had nothing in step 1 and was ready at 6 us,
  // 0 at 9 us: it starts at 14 and ends at 15 us, before step 1 does.
  Flow relay = flow(t, g[0], g[1], 96e3);
  relay.final = g[2];
  Flow hop = flow(t, g[1], g[2], 96e3);
  hop.origin = g[0];
  Schedule s{{Step{{relay, flow(t, g[2], g[3], 24e3)}}, Step{{hop}}, Step{{flow(t, g[3], g[0], 24e3)}}}};
  SimResult r = simulate(t, s, options(SyncMode::rank, 5));
  CHECK(r.arrival_us[2] == doctest::Approx(18.0));
  CHECK(r.arrival_us[0] == doctest::Approx(15.0));
  CHECK(r.arrival_us[3] == doctest::Approx(6.0));
  CHECK(r.arrival_us[1] == 0.0);  // relayed bytes are not delivered there
  CHECK(r.time_us == doctest::Approx(18.0));
  REQUIRE(r.rank_finish_us.size() == 4);
  CHECK(r.rank_finish_us[0] == doctest::Approx(15.0));
  CHECK(r.rank_finish_us[1] == doctest::Approx(18.0));
  CHECK(r.rank_finish_us[2] == doctest::Approx(18.0));
  CHECK(r.rank_finish_us[3] == doctest::Approx(15.0));
  CHECK(r.delivered.at(0, 2) == 96e3);
  SimResult b = simulate(t, s, options(SyncMode::barrier, 5));
  CHECK(b.time_us == doctest::Approx(9.0 + 9.0 + 6.0));
}

TEST_CASE("eager sends: a small message does not hold its sender; detached waits for the receiver's step, eager not") {
  Topology t = make_node_from_shape("[g4]", {});  // 24 GB/s links under one switch, 24e3 bytes per us
  const auto& g = t.gpus;
  // Sender free: step 0: 0 -> 1 48e3 bytes (2 us alone), step 1: 0 -> 2
  // 24e3. Rendezvous: 0 -> 2 is posted when 0 -> 1 ends (7 us): 12 .. 13.
  // Below the limit, rank 0 goes on at once: 0 -> 2 starts at 5 beside
  // 0 -> 1 on GPU 0's link (12e3 bytes per us each): 0 -> 2 ends at 7,
  // 0 -> 1 moves its last 24e3 bytes alone, ending at 8.
  Schedule sender{{Step{{flow(t, g[0], g[1], 48e3)}}, Step{{flow(t, g[0], g[2], 24e3)}}}};
  CHECK(simulate(t, sender, options(SyncMode::rank, 5)).time_us == doctest::Approx(13.0));
  for (EagerMode m : {EagerMode::detached, EagerMode::eager}) {
    SimResult r = simulate(t, sender, options(SyncMode::rank, 5, 0.0, m, 1e5));
    CHECK(r.time_us == doctest::Approx(8.0));
    CHECK(r.arrival_us[2] == doctest::Approx(7.0));
    CHECK(r.rank_finish_us[0] == doctest::Approx(8.0));  // its last transfer, not when it went on
    CHECK(r.step_us[1] == doctest::Approx(7.0));          // posted at 0
  }
  // The limit is strict (0 -> 1 is 48e3 bytes), and the barrier mode has
  // no eager sends ((5 + 2) + (5 + 1)).
  CHECK(simulate(t, sender, options(SyncMode::rank, 5, 0.0, EagerMode::eager, 48001)).time_us == doctest::Approx(8.0));
  CHECK(simulate(t, sender, options(SyncMode::rank, 5, 0.0, EagerMode::eager, 48e3)).time_us == doctest::Approx(13.0));
  CHECK(simulate(t, sender, options(SyncMode::barrier, 5, 0.0, EagerMode::eager, 1e5)).time_us == doctest::Approx(13.0));

  // Receiver late: step 0: 2 -> 1 48e3 (rank 1 busy until 7); step 1:
  // 0 -> 1 24e3, rank 0 there at once. Detached, it waits for rank 1's
  // step (posted at 7: 12 .. 13, as a rendezvous); eager, it moves at once
  // (5 .. 7 beside 2 -> 1 into GPU 1, which ends at 8), and rank 1 passes
  // through its step 1, its receive already in.
  Schedule late{{Step{{flow(t, g[2], g[1], 48e3)}}, Step{{flow(t, g[0], g[1], 24e3)}}}};
  CHECK(simulate(t, late, options(SyncMode::rank, 5)).time_us == doctest::Approx(13.0));
  CHECK(simulate(t, late, options(SyncMode::rank, 5, 0.0, EagerMode::detached, 1e5)).time_us == doctest::Approx(13.0));
  SimResult e = simulate(t, late, options(SyncMode::rank, 5, 0.0, EagerMode::eager, 1e5));
  CHECK(e.time_us == doctest::Approx(8.0));
  CHECK(e.arrival_us[1] == doctest::Approx(8.0));
  CHECK(e.rank_finish_us[1] == doctest::Approx(8.0));
  CHECK(e.rank_finish_us[0] == doctest::Approx(7.0));
}

TEST_CASE("eager sends: out-of-range options are refused") {
  Topology t = make_node_from_shape("[g2]", {});
  Schedule s{{Step{{flow(t, t.gpus[0], t.gpus[1], 1e3)}}}};
  CHECK_THROWS_AS(simulate(t, s, options(SyncMode::rank, 5, 0.0, EagerMode::eager, -1.0)), UsageError);
  CHECK_THROWS_AS(simulate(t, s, options(SyncMode::rank, 5, 0.0, static_cast<EagerMode>(7))), UsageError);
}

TEST_CASE("rank sync: a step without bytes takes no time, as the executor posts nothing for it") {
  Topology t = make_node_from_shape("[g2]", {});
  Schedule s{{Step{{flow(t, t.gpus[0], t.gpus[1], 0.0)}}, Step{}, Step{{flow(t, t.gpus[1], t.gpus[0], 24e3)}}}};
  SimResult r = simulate(t, s, options(SyncMode::rank, 7));
  REQUIRE(r.step_us.size() == 3);
  CHECK(r.step_us[0] == 0.0);
  CHECK(r.step_us[1] == 0.0);
  CHECK(r.step_us[2] == doctest::Approx(8.0));
  CHECK(r.time_us == doctest::Approx(8.0));
  CHECK(simulate(t, s, options(SyncMode::barrier, 7)).time_us == doctest::Approx(15.0));
}

TEST_CASE("rank sync equals barrier sync on a single step") {
  Topology t = slow_root_complex_node();
  int trial = 0;
  for (const Schedule& s : random_schedules(t, 8, 1)) {
    CAPTURE(trial++);
    for (double eps : {0.0, 1e-4}) {
      for (EagerMode m : {EagerMode::off, EagerMode::detached, EagerMode::eager}) {
        CAPTURE(static_cast<int>(m));
        SimResult rank = simulate(t, s, options(SyncMode::rank, 5, eps, m, 1e5));
        SimResult barrier = simulate(t, s, options(SyncMode::barrier, 5, eps));
        CHECK(rank.time_us == doctest::Approx(barrier.time_us).epsilon(1e-9));
        CHECK(rank.step_us[0] == doctest::Approx(barrier.step_us[0]).epsilon(1e-9));
        for (std::size_t i = 0; i < t.gpus.size(); ++i) {
          CHECK(rank.arrival_us[i] == doctest::Approx(barrier.arrival_us[i]).epsilon(1e-9));
          CHECK(rank.rank_finish_us[i] == doctest::Approx(barrier.rank_finish_us[i]).epsilon(1e-9));
        }
      }
    }
  }
}

TEST_CASE("rank sync matches a from-scratch reference and never beats the lower bound") {
  Topology t = slow_root_complex_node();
  int trial = 0;
  for (const Schedule& s : random_schedules(t, 6, 4)) {
    CAPTURE(trial++);
    Demand d(t.gpus.size());
    for (const Step& step : s.steps)
      for (const Flow& f : step.flows) {
        const auto a = static_cast<std::size_t>(std::find(t.gpus.begin(), t.gpus.end(), f.src) - t.gpus.begin());
        const auto b = static_cast<std::size_t>(std::find(t.gpus.begin(), t.gpus.end(), f.dst) - t.gpus.begin());
        d.add(a, b, f.bytes);
      }
    const double bound = lower_bound(t, d, BoundOptions{3.0}).time_us;
    SimResult exact = simulate(t, s, options(SyncMode::rank, 3));
    CHECK(exact.time_us == doctest::Approx(reference_rank_makespan(t, s, 3.0)).epsilon(1e-9));
    // Eager sends, the limit inside the sizes' range (1e3 .. 1e6 bytes).
    for (EagerMode m : {EagerMode::detached, EagerMode::eager}) {
      CAPTURE(static_cast<int>(m));
      const double eager = simulate(t, s, options(SyncMode::rank, 3, 0.0, m, 3e4)).time_us;
      CHECK(eager == doctest::Approx(reference_rank_makespan(t, s, 3.0, m, 3e4)).epsilon(1e-9));
      CHECK(eager >= bound * (1 - 1e-12));
    }
    SimResult batched = simulate(t, s, options(SyncMode::rank, 3, 1e-2));
    CHECK(batched.time_us == doctest::Approx(exact.time_us).epsilon(2e-2));
    for (const SimResult* r : {&exact, &batched}) {
      CHECK(r->time_us >= bound * (1 - 1e-12));
      CHECK(r->time_us == doctest::Approx(*std::max_element(r->rank_finish_us.begin(), r->rank_finish_us.end())));
    }
    CHECK(simulate(t, s, options(SyncMode::barrier, 3)).time_us >= bound * (1 - 1e-12));
  }
}

TEST_CASE("rank sync runs the contention model with port arbitration") {
  Topology t = slow_root_complex_node();
  int trial = 0;
  for (const Schedule& s : random_schedules(t, 3, 3)) {
    CAPTURE(trial++);
    SimOptions o = options(SyncMode::rank, 3, 1e-4);
    SimResult ideal = simulate(t, s, o);
    o.contention.enabled = true;
    o.contention.port_arbitration = true;
    SimResult arbitrated = simulate(t, s, o);  // ports only: redistributes, charges nothing
    o.contention.forwarder = EfficiencyCurve{true, 0.25, 0.5};
    SimResult degraded = simulate(t, s, o);
    CHECK(arbitrated.time_us > 0.0);
    CHECK(arbitrated.transfers == ideal.transfers);
    CHECK(degraded.time_us > arbitrated.time_us * 1.01);  // the forwarders bind here
    CHECK(arbitrated.unsettled_events <= arbitrated.events);
  }
}

namespace {
// Starts for a hand-made problem: `at0` at their time; then each transfer
// in `after` starts `gap` after the one it names finishes.
struct ChainStarts : detail::Starts {
  std::vector<detail::Start> at0;
  std::map<std::uint32_t, std::uint32_t> after;  // finished -> starts
  double gap = 0.0;
  void first(std::vector<detail::Start>& out) override { out = at0; }
  void finished(const std::vector<std::uint32_t>& done, double now, std::vector<detail::Start>& out) override {
    for (std::uint32_t k : done)
      if (auto it = after.find(k); it != after.end()) out.push_back({now + gap, it->second});
  }
};
}  // namespace

TEST_CASE("the incremental engine with starts matches the from-scratch one, with and without degradation") {
  Prng rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    CAPTURE(trial);
    detail::FluidProblem p;
    const std::uint32_t nr = 6 + static_cast<std::uint32_t>(rng.uniform() * 10);
    for (std::uint32_t r = 0; r < nr; ++r) p.capacity.push_back(10.0 + 90.0 * rng.uniform());
    const std::uint32_t nf = 10 + static_cast<std::uint32_t>(rng.uniform() * 40);
    ChainStarts starts;
    starts.gap = trial % 3 == 0 ? 0.0 : 2.0;
    for (std::uint32_t f = 0; f < nf; ++f) {
      std::vector<std::uint32_t> res;
      for (std::uint32_t r = 0; r < nr; ++r)
        if (rng.uniform() < 0.3) res.push_back(r);
      if (res.empty()) res.push_back(f % nr);
      p.add_transfer(100.0 + 1e4 * rng.uniform(), res);
      if (f < nf / 3) starts.at0.push_back({50.0 * rng.uniform() * (trial % 2), f});
      else starts.after[f - nf / 3] = f;  // chained: a later transfer starts when an earlier one ends
    }
    if (trial >= 20) p.degradation.assign(nr, detail::Degradation{0.3, 0.4, 0.9});
    ChainStarts again = starts;
    const detail::FluidOutcome inc = detail::run_fluid(p, 0.0, starts);
    const detail::FluidOutcome ref = detail::run_fluid_arbitrated(p, 0.0, again);
    CHECK(inc.makespan_us == doctest::Approx(ref.makespan_us).epsilon(1e-9));
    for (std::uint32_t f = 0; f < nf; ++f) CHECK(inc.finish_us[f] == doctest::Approx(ref.finish_us[f]).epsilon(1e-9));
  }
}
