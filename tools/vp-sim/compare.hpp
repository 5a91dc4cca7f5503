// What vp-sim does with one demand: the lower bound and the route bound of
// the direct-route schedulers, then for each chosen
// scheduler its schedule, checked (check_schedule: every byte delivered
// exactly once, only by GPUs that hold it) and simulated.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "costs.hpp"
#include "vp/sim/demand.hpp"
#include "vp/sim/flow_bound.hpp"
#include "vp/sim/job_view.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/route_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/topology/topology.hpp"
#include "vpcat/planner.hpp"

namespace vp::sim_cli {

// In output order.
inline const std::vector<std::string> kSchedulers{"variopath", "fanout", "nccl", "spreadout",
                                                  "fast", "deepep_nvlink_style", "deepep_pcie"};

// "all" or a comma list of kSchedulers' names, kept in kSchedulers' order.
// Throws vp::UsageError naming an unknown one.
std::vector<std::string> parse_schedulers(const std::string& list);

// The schedulers the route bound (route_bound.hpp) holds for: each byte sent
// once, origin -> final, on its default route.
inline bool direct_route_scheduler(const std::string& name) {
  return name == "fanout" || name == "nccl" || name == "spreadout";
}

struct CompareOptions {
  sim::SimOptions sim;           // latency_us is also the bound's and the planner's
  vpcat::PlanOptions plan;       // its latency_us is overwritten with sim.latency_us
  int plan_timed_calls = 5;      // planning time measured: median of this many calls after a warm-up
  PlanningCharge planning;       // what plans_online() schedulers are charged for planning (--planning-us)
  int deepep_chunks = 8;
  int nccl_peers = 8;            // NcclOptions::peers_in_flight
  // A baseline the machine or the job's view cannot run (sim::Inapplicable)
  // is skipped (true: the schedulers were "all") or an error (false: it was
  // asked for by name).
  bool skip_inapplicable = false;
  // The scheduler whose schedule and simulation CaseResult keeps (vp-sim
  // --svg draws them); empty: none.
  std::string keep;
};

struct SchedulerResult {
  std::string name;
  // The total a rank waits for the call: exchange_us + planning_us +
  // transfer_us. Every ratio and bandwidth below is of this total.
  double time_us = 0.0;
  double exchange_us = 0.0;      // counts_exchange_us() of counts_exchange(name)
  double planning_us = 0.0;      // charged: plans_online(name) ? measured or the budget : 0
  double transfer_us = 0.0;      // the simulated schedule
  double ratio_to_bound = 0.0;   // time_us / lower bound; 0 when the bound is 0
  // total bytes / time_us, GB/s; 0 when the time is 0.
  double aggregate_gbps = 0.0;
  // Sum over receiving GPUs of (bytes delivered to it / when its last byte
  // arrived, exchange and planning included), GB/s: p2pmark's "total" (each
  // reader timed on its own clock). At least aggregate_gbps; equal when
  // every receiver ends together.
  double receiver_sum_gbps = 0.0;
  // Wall clock of building the schedule here: variopath and fast, the
  // median of plan_timed_calls calls after a warm-up (fast: one call when a
  // budget is charged); the others, one call (a reconstruction's cost, not
  // their authors' code, and not charged).
  double planning_measured_us = 0.0;
  std::size_t steps = 0, flows = 0;
  std::size_t unsettled_events = 0;  // sim::SimResult::unsettled_events (port arbitration)
  double shared_bytes = 0.0;         // variopath: sim::VarioPathRun::shared_bytes
  // Why the baseline would not run on this machine as its authors run it
  // (computed and shown all the same, marked hypothetical); "" when it would.
  std::string hypothetical;
};

struct CaseResult {
  sim::LowerBound bound;
  sim::LowerBound route_bound;  // direct_route_bound(): holds for fanout, nccl, spreadout only
  // flow_bound(), when asked for (vp-sim --flow-bound; compare() leaves it
  // empty: the LP solver is linked by vp-sim alone).
  std::optional<sim::FlowBound> flow_bound;
  double total_bytes = 0.0;
  std::vector<SchedulerResult> results;  // in the order asked
  // Baselines not run on this machine or job's view, and why (CompareOptions::skip_inapplicable).
  std::vector<std::pair<std::string, std::string>> skipped;
  // CompareOptions::keep's schedule and its simulation (empty otherwise).
  sim::Schedule kept_schedule;
  sim::SimResult kept_sim;
};

// With `job` (a subset of the cluster's GPUs; `planner` is over the same
// subset), `demand` is over the job's ranks: the baselines schedule the
// job's view (sim::JobView), VarioPath's plan is carried into it, and every
// schedule is checked, bounded and simulated there (the rest of the
// cluster idle: the same times as on the cluster). A baseline that cannot
// schedule the machine or the job's view (sim::Inapplicable: nodes of
// different numbers of GPUs, no NIC for DeepEP's PCIe mode) is listed in
// CaseResult::skipped when opts.skip_inapplicable, else a vp::UsageError.
//
// Throws vp::InputError("demand", ...) for a demand that does not fit or
// that the planner refuses; vp::InternalError when a schedule fails
// check_schedule (a bug in a scheduler), naming it and the violation.
CaseResult compare(const Topology& t, vpcat::Planner& planner, const sim::Demand& demand,
                   const std::vector<std::string>& schedulers, const CompareOptions& opts,
                   const sim::JobView* job = nullptr);

}  // namespace vp::sim_cli
