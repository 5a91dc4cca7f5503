#include "placement_score.hpp"

#include "vp/base/errors.hpp"
#include "vp/sim/job_view.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/variopath.hpp"

namespace vp::catalog_cli {

PlacementScore score_placement(const vpcat::CatalogView& view, const Topology& topo, const vpcat::Subset& subset,
                               const std::vector<std::uint64_t>& demand, double latency_us,
                               const std::string& catalog_file,
                               const std::function<void(const vpcat::PlanStatus&)>& refused) {
  vpcat::Planner planner;
  if (const vpcat::PlanStatus s = planner.init(view, subset); !s.ok()) throw InputError(catalog_file, 0, s.message());
  const std::uint32_t n = subset.gpu_count();
  vpcat::PlanOptions po;
  po.latency_us = latency_us;
  vpcat::Plan plan;
  if (const vpcat::PlanStatus s = planner.plan(vpcat::Demand::dense(demand.data(), n), po, plan); !s.ok()) {
    refused(s);
    throw InputError(catalog_file, 0, s.message());  // `refused` must throw; never reached
  }
  // Judged on the job's view of the cluster (the rest idle changes no time).
  const sim::JobView job = sim::job_view(topo, subset);
  sim::Demand ranks(n);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t)
      if (s != t) ranks.set(s, t, static_cast<double>(demand[std::size_t{s} * n + t]));
  sim::BoundOptions bo;
  bo.latency_us = latency_us;
  const sim::LowerBound bound = sim::lower_bound(job.topology, ranks, bo);
  sim::SimOptions so;
  so.latency_us = latency_us;
  const sim::SimResult run =
      sim::simulate(job.topology, sim::view_schedule(job, sim::plan_schedule(topo, planner, plan)), so);
  PlacementScore p;
  p.gpu_count = n;
  p.node_count = subset.node_count();
  p.bound_us = bound.time_us;
  p.cut = bound.cut.name;
  p.planned_us = run.time_us;
  p.expected_us = plan.expected_us();
  p.steps = plan.step_count();
  return p;
}

}  // namespace vp::catalog_cli
