// The VarioPath schedule: the runtime planner (vpcat::Planner) run
// on a demand, its Plan turned into a simulator Schedule.
//
// Only the planner's public API is used: plan(), the Plan's steps and
// transfers, route_links() / route_forwarders() (global ids of SPEC.md
// "Global numbering", those of catalog_topology()). One plan step is one
// schedule step; a transfer is one flow whose route is the planner's own
// (links, forwarders, solo rate), not the simulator's default route.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vp/sim/demand.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/topology.hpp"
#include "vpcat/planner.hpp"

namespace vp::sim {

// The demand as the planner reads it: dense uint64_t, row = source, global
// GPU order. Throws PlanRefused naming the first entry the planner's demand
// check refuses (vpcat::check_demand_value: a finite whole number >= 0, at
// most 2^63 off the diagonal).
std::vector<std::uint64_t> planner_demand(const Demand& demand);

// The planner refused a demand (its entries, as planner_demand or
// Planner::plan check them with vpcat/planner/demand_check.hpp): an
// InputError("demand", 0, "the planner refuses it: <the planner's message>")
// that also carries the planner's status, whose fields name the offending
// entry (PlanStatus::entry_src(), entry_dst()).
class PlanRefused : public InputError {
 public:
  explicit PlanRefused(const vpcat::PlanStatus& status);
  const vpcat::PlanStatus& status() const noexcept { return status_; }

 private:
  vpcat::PlanStatus status_;
};

// `plan` as a Schedule on `t` (the cluster of the catalog `planner` was
// initialised with, e.g. catalog_topology()); a subset planner's ranks are
// mapped to the catalog's GPUs (Planner::catalog_gpu). Throws vp::InternalError
// (the plan does not belong to t: a bug of the caller) when a transfer names a GPU t does not have, or a route the planner
// cannot expand, or a link or component id outside t.
Schedule plan_schedule(const Topology& t, const vpcat::Planner& planner, const vpcat::Plan& plan);

struct VarioPathOptions {
  vpcat::PlanOptions plan;  // latency_us should match the simulator's
  // Planning time: one warm-up call (it sizes the planner's scratch), then
  // the median wall-clock time of `timed_calls` calls (>= 1).
  int timed_calls = 5;
};

struct VarioPathRun {
  Schedule schedule;
  double planning_us = 0.0;   // median wall clock of the timed calls
  std::size_t steps = 0, transfers = 0;
  double expected_us = 0.0;   // the planner's own expectation (Plan::expected_us)
  // Bytes of the plan's shared step (PlanStep::shared: transfers that
  // contend; only with PlanOptions::allow_shared); 0 for channel steps only.
  double shared_bytes = 0.0;
};

// Plan `demand` with `planner` (initialised on the catalog of `t`, whole or
// over a subset: the demand is then over the subset's ranks) and convert
// the plan onto t. Throws InputError("demand", 0, reason) when the demand
// does not fit, PlanRefused when the planner refuses it, and
// vp::UsageError on bad options.
VarioPathRun variopath_schedule(const Topology& t, vpcat::Planner& planner, const Demand& demand,
                                const VarioPathOptions& opts = {});

}  // namespace vp::sim
