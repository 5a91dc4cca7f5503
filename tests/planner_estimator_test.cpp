// The planner's estimator (runtime_loader/include/vpcat/planner/detail/estimator.hpp)
// against the judge: the expectation of a default plan (the sum of its
// steps') and vp-sim's time for the same plan with a barrier between steps,
// under the same model (the ideal one, and the committed contention table
// given to the planner as its machine model), on a few platforms, demands
// and message sizes. A test of the estimator's accuracy, not of speed: the
// simulated time must lie within kBelow..kAbove of the expectation
// (docs/planner.md "Expected time" states the tolerance and why).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "machine_model_file.hpp"
#include "contention_file.hpp"
#include "planner_support.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/sim/catalog_topology.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/variopath.hpp"
#include "vp/sim/workloads.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

// Simulated / expected: channel steps are exact (contention-free steps run
// at their solo rates); a sharing step's expectation takes its initial
// crowding throughout and its busiest resource as its length, so max-min
// sharing, where crowding thins as transfers finish, may end sooner, and a
// transfer held back by two busy resources later.
constexpr double kBelow = 0.80, kAbove = 1.10;

Demand scaled(const Demand& d, double mean_pair_bytes) {
  const std::size_t n = d.size();
  double total = 0;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t t = 0; t < n; ++t) total += s == t ? 0 : d.at(s, t);
  Demand out(n);
  const double f = mean_pair_bytes * static_cast<double>(n * (n - 1)) / total;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t t = 0; t < n; ++t)
      if (s != t) out.set(s, t, std::floor(d.at(s, t) * f));
  return out;
}

}  // namespace

TEST_CASE("the estimator against the judge: a default plan's barrier-synchronised time within tolerance") {
  const ContentionModel table = sim_cli::read_contention_file(std::string(VP_SOURCE_DIR) + "/simulator/contention.json");
  for (const char* name : {"1n", "4n-switch", "h20-2n", "g6-3n"}) {
    const plantest::Platform& p = plantest::platform(name);
    const Topology t = catalog_topology(catalog::read_catalog(p.bytes), name);
    vpcat::Planner planner;
    REQUIRE(planner.init(p.view).ok());
    const std::size_t n = t.gpus.size();
    MoeOptions mo;
    mo.zipf_exponent = 1.2;
    for (const bool contention : {false, true}) {
      SimOptions so;
      so.sync = SyncMode::barrier;
      if (contention) so.contention = table;
      vpcat::PlanOptions po;
      po.machine = sim_cli::machine_model_of(so.contention, "the committed table");
      for (const double pair_bytes : {1024.0, 131072.0, 4194304.0}) {
        for (const bool moe : {false, true}) {
          const Demand d = scaled(moe ? moe_dispatch_demand(n, mo) : uniform_demand(n, 1 << 20), pair_bytes);
          const std::vector<std::uint64_t> bytes = planner_demand(d);
          vpcat::Plan plan;
          REQUIRE(planner.plan(vpcat::Demand::dense(bytes.data(), n), po, plan).ok());
          const double expected = planner.estimate_us(plan, po);
          REQUIRE(expected > 0);
          const SimResult r = simulate(t, plan_schedule(t, planner, plan), so);
          std::size_t sharing = 0;
          for (std::size_t i = 0; i < plan.step_count(); ++i) sharing += plan.step(i).shared;
          const std::string what =
              std::string(name) + (contention ? ", contention, " : ", ideal, ") + (moe ? "moe 1.2, " : "uniform, ");
          INFO(what << pair_bytes << " B per pair: " << plan.step_count() << " steps (" << sharing
               << " sharing), expected " << expected << " us, simulated " << r.time_us << " us");
          CHECK(r.time_us >= kBelow * expected);
          CHECK(r.time_us <= kAbove * expected);
        }
      }
    }
  }
}
