// The VarioPath schedule adapter (vp/sim/variopath.hpp).
#include "vp/sim/variopath.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "vp/sim/cpu_clock.hpp"
#include "vp/topology/errors.hpp"
#include "vpcat/planner/demand_check.hpp"

namespace vp::sim {

PlanRefused::PlanRefused(const vpcat::PlanStatus& status)
    : InputError("demand", 0, fmt::format("the planner refuses it: {}", status.message())), status_(status) {}

std::vector<std::uint64_t> planner_demand(const Demand& demand) {
  const std::size_t n = demand.size();
  std::vector<std::uint64_t> out(n * n, 0);
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t d = 0; d < n; ++d) {
      const double b = demand.at(s, d);
      if (const vpcat::PlanStatus st = vpcat::check_demand_value(b, s, d); !st.ok()) throw PlanRefused(st);
      if (s != d) out[s * n + d] = static_cast<std::uint64_t>(b);  // the diagonal never moves
    }
  }
  return out;
}

Schedule plan_schedule(const Topology& t, const vpcat::Planner& planner, const vpcat::Plan& plan) {
  if (plan.gpus() != 0 && plan.gpus() != planner.gpu_count())
    throw InternalError(
        fmt::format("plan_schedule: the plan has {} GPUs, the planner {}", plan.gpus(), planner.gpu_count()));
  // A subset's planner names ranks: the topology's GPU of each is catalog_gpu(rank).
  auto gpu = [&](std::uint32_t rank) -> std::uint64_t {
    return rank < planner.gpu_count() ? planner.catalog_gpu(rank) : ~std::uint64_t{0};
  };
  std::vector<std::uint64_t> ids(std::max<std::uint32_t>(planner.max_route_links(), 1));
  std::vector<std::uint64_t> fwd(64);
  Schedule out;
  out.steps.reserve(plan.step_count());
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    Step step;
    const vpcat::PlanTransfer* tr = plan.step_transfers(i);
    step.flows.reserve(plan.step(i).count);
    for (std::uint32_t k = 0; k < plan.step(i).count; ++k) {
      const vpcat::PlanTransfer& x = tr[k];
      const auto where = [&] { return fmt::format("plan_schedule: step {} transfer {} ({} -> {})", i, k, x.src, x.dst); };
      const std::uint64_t src = gpu(x.src), dst = gpu(x.dst), origin = gpu(x.origin), final = gpu(x.final);
      if (src >= t.gpus.size() || dst >= t.gpus.size() || origin >= t.gpus.size() || final >= t.gpus.size())
        throw InternalError(where() + ": a GPU index outside the topology");
      Flow f;
      f.src = t.gpus[src];
      f.dst = t.gpus[dst];
      f.origin = t.gpus[origin];
      f.final = t.gpus[final];
      f.bytes = static_cast<double>(x.bytes);
      const std::uint32_t links = planner.route_links(x, ids.data(), static_cast<std::uint32_t>(ids.size()));
      if (links == 0 || links > ids.size()) throw InternalError(where() + ": the planner has no route for it");
      f.route.links.reserve(links);
      for (std::uint32_t j = 0; j < links; ++j) {
        if (ids[j] >= t.links.size()) throw InternalError(where() + fmt::format(": link {} is not in the topology", ids[j]));
        f.route.links.push_back(static_cast<LinkId>(ids[j]));
      }
      std::uint32_t forwarders = planner.route_forwarders(x, fwd.data(), static_cast<std::uint32_t>(fwd.size()));
      if (forwarders > fwd.size()) {
        fwd.resize(forwarders);
        forwarders = planner.route_forwarders(x, fwd.data(), static_cast<std::uint32_t>(fwd.size()));
      }
      for (std::uint32_t j = 0; j < forwarders; ++j) {
        if (fwd[j] >= t.components.size())
          throw InternalError(where() + fmt::format(": component {} is not in the topology", fwd[j]));
        f.route.forwarders.push_back(static_cast<ComponentId>(fwd[j]));
      }
      f.route.solo_gbps = x.solo_gbps;
      f.route.type = x.src_nic == vpcat::kNoNic ? PathType::LOC : PathType::NET;  // informative only
      step.flows.push_back(std::move(f));
    }
    out.steps.push_back(std::move(step));
  }
  return out;
}

VarioPathRun variopath_schedule(const Topology& t, vpcat::Planner& planner, const Demand& demand,
                                const VarioPathOptions& opts) {
  // The planner plans the whole cluster or a subset of it (its demands are
  // then over the subset's ranks, mapped back by plan_schedule()).
  if (planner.gpu_count() == t.gpus.size()) {
    demand.check_fits(t, "demand");
  } else if (demand.size() != planner.gpu_count()) {
    throw InputError("demand", 0,
                     fmt::format("the demand is {} x {} but the planner's subset has {} GPUs", demand.size(),
                                 demand.size(), planner.gpu_count()));
  }
  if (opts.timed_calls < 1)
    throw UsageError(fmt::format("variopath_schedule: timed_calls must be >= 1, got {}", opts.timed_calls));
  const std::vector<std::uint64_t> bytes = planner_demand(demand);
  const vpcat::Demand view = vpcat::Demand::dense(bytes.data(), demand.size());
  vpcat::Plan plan;
  auto call = [&] {
    const vpcat::PlanStatus s = planner.plan(view, opts.plan, plan);
    if (s.code() == vpcat::PlanError::bad_options) throw UsageError(s.message());
    if (!s.ok()) throw PlanRefused(s);
  };
  VarioPathRun run;
  run.planning_us = median_cpu_us(opts.timed_calls, call);  // the first call sizes the scratch and the plan
  run.steps = plan.step_count();
  run.transfers = plan.transfer_count();
  run.expected_us = plan.expected_us();
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    if (!plan.step(i).shared) continue;
    const vpcat::PlanTransfer* tr = plan.step_transfers(i);
    for (std::uint32_t k = 0; k < plan.step(i).count; ++k) run.shared_bytes += static_cast<double>(tr[k].bytes);
  }
  run.schedule = plan_schedule(t, planner, plan);
  return run;
}

}  // namespace vp::sim
