// The VarioPath schedule adapter (vp/sim/variopath.hpp): the planner's plan
// as a simulator Schedule on the catalog's cluster, with the planner's own
// routes, delivering every byte (check_schedule) and never beating the
// lower bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "planner_support.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/sim/catalog_topology.hpp"
#include "vp/sim/check_schedule.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/variopath.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/errors.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;
using vp::plantest::Platform;

namespace {

// A private planner on the platform's catalog (the cached platform's is
// shared with other tests).
struct Setup {
  const Platform& p;
  Topology t;
  vpcat::Planner planner;
  explicit Setup(const std::string& name)
      : p(plantest::platform(name)), t(catalog_topology(catalog::read_catalog(p.bytes), name)) {
    REQUIRE(planner.init(p.view).ok());
  }
};

Demand moe(std::size_t n, double zipf) {
  MoeOptions o;
  o.tokens_per_gpu = 512;
  o.zipf_exponent = zipf;
  return moe_dispatch_demand(n, o);
}

}  // namespace

TEST_CASE("a plan becomes a schedule with the planner's steps, transfers and routes") {
  // H20 with NIC loopbacks: a transfer within one node through two NICs
  // becomes the analyzer's network route too.
  for (const char* name : {"1n", "4n-switch", "16n-rail", "g6-3n", "2n-half-gpudirect", "h20-2n"}) {
    CAPTURE(name);
    Setup s(name);
    const std::size_t n = s.t.gpus.size();
    vpcat::PlanOptions po;
    po.nic_loopback = std::string(name) == "h20-2n";
    for (const Demand& d : {uniform_demand(n, 1 << 20), moe(n, 1.2), hot_spot_demand(n, 65536, n - 1)}) {
      const std::vector<std::uint64_t> bytes = planner_demand(d);
      vpcat::Plan plan;
      REQUIRE(s.planner.plan(vpcat::Demand::dense(bytes.data(), n), po, plan).ok());
      if (po.nic_loopback) CHECK(plantest::loopbacks(s.planner, plan) > 0);  // what H20 is here for
      const Schedule sched = plan_schedule(s.t, s.planner, plan);
      REQUIRE(sched.steps.size() == plan.step_count());
      for (std::size_t i = 0; i < plan.step_count(); ++i) {
        REQUIRE(sched.steps[i].flows.size() == plan.step(i).count);
        for (std::uint32_t k = 0; k < plan.step(i).count; ++k) {
          const vpcat::PlanTransfer& x = plan.step_transfers(i)[k];
          const Flow& f = sched.steps[i].flows[k];
          CHECK(f.src == s.t.gpus[x.src]);
          CHECK(f.dst == s.t.gpus[x.dst]);
          CHECK(f.bytes == static_cast<double>(x.bytes));
          // The analyzer's route for the same GPUs and NICs, on the
          // load_input cluster: the same link ids and forwarders.
          const Route want = plantest::analyzer_route(s.p, x);
          CHECK(f.route.links == want.links);
          CHECK(f.route.forwarders == want.forwarders);
        }
      }
      const ScheduleCheck check = check_schedule(s.t, d, sched);
      CHECK_MESSAGE(check.ok, check.message);
    }
  }
}

TEST_CASE("variopath_schedule delivers every byte and never beats the bound") {
  Setup s("4n-switch");
  const std::size_t n = s.t.gpus.size();
  VarioPathOptions o;
  o.timed_calls = 3;
  for (const Demand& d : {uniform_demand(n, 1 << 20), moe(n, 0.8), hot_spot_demand(n, 1 << 18, 3)}) {
    const VarioPathRun run = variopath_schedule(s.t, s.planner, d, o);
    CHECK(run.steps == run.schedule.steps.size());
    CHECK(run.planning_us >= 0);
    const ScheduleCheck check = check_schedule(s.t, d, run.schedule);
    CHECK_MESSAGE(check.ok, check.message);
    const SimResult sim = simulate(s.t, run.schedule);
    CHECK(sim.delivered == d);
    CHECK(sim.time_us >= lower_bound(s.t, d).time_us);
  }
}

TEST_CASE("variopath_schedule counts the bytes of the shared step, and none in channels only") {
  Setup s("1n");
  const std::size_t n = s.t.gpus.size();
  const Demand d = uniform_demand(n, 1 << 20);
  VarioPathOptions o;
  o.timed_calls = 1;
  o.plan.channels_only = true;
  o.plan.machine = vpcat::MachineModel::ideal();  // the shared step as lossless sharing
  CHECK(variopath_schedule(s.t, s.planner, d, o).shared_bytes == 0.0);
  // On one node a balanced demand in channels stays ~1.4x the root-complex
  // bound that the shared step nearly reaches, so the plan is (or ends
  // with) the shared step: its bytes are those of the schedule's last step.
  o.plan.allow_shared = true;
  const VarioPathRun run = variopath_schedule(s.t, s.planner, d, o);
  REQUIRE_FALSE(run.schedule.steps.empty());
  double last = 0;
  for (const Flow& f : run.schedule.steps.back().flows) last += f.bytes;
  CHECK(run.shared_bytes > 0.0);
  CHECK(run.shared_bytes == last);
  CHECK(run.shared_bytes <= d.total());
}

// Plan::expected_us is an estimate (docs/planner.md "Plans"): channel steps
// exactly (each lasts its longest piece at its solo rate), the shared step
// by its congestion. Against the simulator's ideal model with a barrier
// between steps (what the estimate assumes), both shapes within 10 % on the
// suite's platforms and workloads.
TEST_CASE("a plan's expected time agrees with the ideal simulation within 10 %, channels only and shared allowed") {
  double worst = 0.0;  // largest |expected / simulated - 1| with a shared step
  // H20 with NIC loopbacks (its shared step then loops its intra-node
  // payloads through the NICs).
  for (const char* name : {"1n", "4n-switch", "16n-rail", "g6-3n", "5n-leafspine-tight", "h20-2n"}) {
    Setup s(name);
    const std::size_t n = s.t.gpus.size();
    for (const Demand& d : {uniform_demand(n, 1 << 20), moe(n, 0.8), moe(n, 1.2), hot_spot_demand(n, 1 << 20, 0)}) {
      for (bool shared : {false, true}) {
        CAPTURE(name);
        CAPTURE(shared);
        VarioPathOptions o;
        o.timed_calls = 1;
        o.plan.channels_only = true;  // default plans: tests/planner_estimator_test.cpp
        o.plan.allow_shared = shared;
        o.plan.machine = vpcat::MachineModel::ideal();  // the model simulated
        o.plan.nic_loopback = std::string(name) == "h20-2n";
        const VarioPathRun run = variopath_schedule(s.t, s.planner, d, o);
        SimOptions barrier;
        barrier.sync = SyncMode::barrier;
        const double simulated = simulate(s.t, run.schedule, barrier).time_us;
        CAPTURE(run.shared_bytes);
        CHECK(run.expected_us == doctest::Approx(simulated).epsilon(0.10));
        if (!shared) CHECK(run.expected_us == doctest::Approx(simulated).epsilon(1e-6));  // barriers, solo rates
        if (run.shared_bytes > 0) worst = std::max(worst, std::abs(run.expected_us / simulated - 1.0));
      }
    }
  }
  MESSAGE("plans with a shared step: expected / simulated within " << 100 * worst << " %");
}

TEST_CASE("a demand the planner cannot read is refused naming the entry") {
  Setup s("1n");
  Demand d(8);
  d.set(2, 5, 1.5);
  CHECK_THROWS_WITH_AS(planner_demand(d),
                       "demand: the planner refuses it: demand [2][5]: demand entry is not a byte count (1.5: bytes "
                       "must be a finite whole number >= 0)",
                       InputError);
  try {  // the entry as fields, for a tool to point at it
    planner_demand(d);
    FAIL("no PlanRefused");
  } catch (const PlanRefused& e) {
    CHECK(e.status().code() == vpcat::PlanError::bad_demand_value);
    CHECK(e.status().entry_src() == 2);
    CHECK(e.status().entry_dst() == 5);
  }
  CHECK_THROWS_AS(variopath_schedule(s.t, s.planner, Demand(4)), InputError);
  VarioPathOptions o;
  o.timed_calls = 0;
  CHECK_THROWS_AS(variopath_schedule(s.t, s.planner, Demand(8), o), vp::UsageError);
}

TEST_CASE("an empty demand is an empty schedule") {
  Setup s("4n-switch");
  const VarioPathRun run = variopath_schedule(s.t, s.planner, Demand(32));
  CHECK(run.schedule.steps.empty());
  CHECK(simulate(s.t, run.schedule).time_us == 0.0);
}
