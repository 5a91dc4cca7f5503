#include "compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "vp/sim/baselines.hpp"
#include "vp/sim/check_schedule.hpp"
#include "vp/sim/cpu_clock.hpp"
#include "vp/sim/variopath.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim_cli {

std::vector<std::string> parse_schedulers(const std::string& list) {
  if (list == "all") return kSchedulers;
  std::vector<bool> chosen(kSchedulers.size(), false);
  std::string::size_type at = 0;
  while (at <= list.size()) {
    std::string::size_type comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(at, comma - at);
    at = comma + 1;
    auto it = std::find(kSchedulers.begin(), kSchedulers.end(), name);
    if (it == kSchedulers.end()) {
      std::string known;
      for (const std::string& k : kSchedulers) known += (known.empty() ? std::string() : std::string(", ")) + k;
      throw UsageError(
          fmt::format("--schedulers: unknown scheduler \"{}\" (expected all, or a comma list of {})", name, known));
    }
    chosen[static_cast<std::size_t>(it - kSchedulers.begin())] = true;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kSchedulers.size(); ++i)
    if (chosen[i]) out.push_back(kSchedulers[i]);
  return out;
}

namespace {

// Sum over receivers of delivered bytes / arrival, in GB/s (1e3 bytes per
// microsecond); every arrival `before_us` later (the exchange and planning).
double receiver_sum_gbps(const sim::SimResult& sim, double before_us) {
  double sum = 0.0;
  for (std::size_t g = 0; g < sim.arrival_us.size(); ++g)
    if (sim.arrival_us[g] > 0) sum += sim.delivered.column_sum(g) / (before_us + sim.arrival_us[g]) / 1e3;
  return sum;
}

}  // namespace

CaseResult compare(const Topology& t, vpcat::Planner& planner, const sim::Demand& demand,
                   const std::vector<std::string>& schedulers, const CompareOptions& opts,
                   const sim::JobView* job) {
  // A job is judged on its view of the cluster (the rest idle changes no
  // time); VarioPath's plan, in the cluster's ids, is carried into it.
  const Topology& view = job ? job->topology : t;
  demand.check_fits(view, "demand");
  CaseResult out;
  out.total_bytes = demand.total();
  out.bound = sim::lower_bound(view, demand, sim::BoundOptions{opts.sim.latency_us});
  out.route_bound = sim::direct_route_bound(view, demand, sim::BoundOptions{opts.sim.latency_us});
  // Each kind of counts exchange simulated once per demand (it depends on
  // the view and the simulator's options only); < 0: not yet.
  double exchange_cost[3] = {-1.0, -1.0, -1.0};
  for (const std::string& name : schedulers) {
    SchedulerResult r;
    r.name = name;
    sim::Schedule schedule;
    const double start = sim::thread_cpu_us();
    if (name == "variopath") {
      sim::VarioPathOptions vo;
      vo.plan = opts.plan;
      vo.plan.latency_us = opts.sim.latency_us;
      vo.timed_calls = opts.plan_timed_calls;
      sim::VarioPathRun run = sim::variopath_schedule(t, planner, demand, vo);
      schedule = job ? sim::view_schedule(*job, run.schedule) : std::move(run.schedule);
      r.planning_measured_us = run.planning_us;
      r.shared_bytes = run.shared_bytes;
    } else {
      try {
        if (name == "fanout") schedule = sim::fanout_schedule(view, demand);
        else if (name == "spreadout") schedule = sim::spreadout_schedule(view, demand);
        else if (name == "nccl") schedule = sim::nccl_schedule(view, demand, sim::NcclOptions{opts.nccl_peers});
        else if (name == "fast") {
          sim::FastOptions fo;
          fo.alpha_us = opts.sim.latency_us;
          // FAST decomposes the matrix per call: timed as VarioPath's plan is.
          if (opts.planning.measured)
            r.planning_measured_us = sim::median_cpu_us(opts.plan_timed_calls, [&] { schedule = sim::fast_schedule(view, demand, fo); });
          else
            schedule = sim::fast_schedule(view, demand, fo);
        } else if (name == "deepep_nvlink_style")
          schedule = sim::deepep_nvlink_style_schedule(view, demand, sim::DeepEpOptions{opts.deepep_chunks});
        else if (name == "deepep_pcie") schedule = sim::deepep_pcie_schedule(view, demand);
        else throw InternalError("compare: unknown scheduler " + name);
      } catch (const sim::Inapplicable& e) {
        // A baseline's own precondition on the machine (or the job's view).
        if (!opts.skip_inapplicable)
          throw UsageError(fmt::format("--schedulers {}: not on this {}: {}", name, job ? "subset" : "machine", e.what()));
        out.skipped.emplace_back(name, e.what());
        continue;
      }
      if (!(name == "fast" && opts.planning.measured))
        r.planning_measured_us = sim::thread_cpu_us() - start;
      if (name == "deepep_pcie") r.hypothetical = sim::deepep_pcie_hypothetical(view);
      else if (name == "deepep_nvlink_style") r.hypothetical = sim::deepep_nvlink_style_hypothetical();
    }
    const sim::ScheduleCheck check = sim::check_schedule(view, demand, schedule);
    if (!check.ok) throw InternalError(fmt::format("{}: the schedule is wrong: {}", name, check.message));
    const sim::SimResult sim = sim::simulate(view, schedule, opts.sim);
    const CountsExchange exchange = counts_exchange(name);
    double& exchange_us = exchange_cost[static_cast<int>(exchange)];
    if (exchange_us < 0) exchange_us = counts_exchange_us(view, exchange, opts.sim);
    r.exchange_us = exchange_us;
    if (plans_online(name)) r.planning_us = opts.planning.measured ? r.planning_measured_us : opts.planning.budget_us;
    r.transfer_us = sim.time_us;
    r.time_us = r.exchange_us + r.planning_us + r.transfer_us;
    r.unsettled_events = sim.unsettled_events;
    r.ratio_to_bound = out.bound.time_us > 0 ? r.time_us / out.bound.time_us : 0.0;
    r.aggregate_gbps = r.time_us > 0 ? out.total_bytes / r.time_us / 1e3 : 0.0;
    r.receiver_sum_gbps = receiver_sum_gbps(sim, r.exchange_us + r.planning_us);
    r.steps = schedule.steps.size();
    for (const sim::Step& s : schedule.steps) r.flows += s.flows.size();
    out.results.push_back(r);
    if (name == opts.keep) {
      out.kept_schedule = std::move(schedule);
      out.kept_sim = sim;
    }
  }
  return out;
}

}  // namespace vp::sim_cli
