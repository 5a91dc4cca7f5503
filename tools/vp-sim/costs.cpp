#include "costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "vp/base/errors.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/demand.hpp"

namespace vp::sim_cli {

CountsExchange counts_exchange(const std::string& scheduler) {
  // variopath: every rank plans from the whole matrix (docs/mpi.md: one
  // MPI_Allgather of P 64-bit integers per rank).
  // fast: MangoBoost/FAST amd/flash.cpp, flash_t::schedule: every rank is
  // handed the whole nrank x nrank workload and runs the global scheduler
  // (init_global_scheduler, run_scheduler) on it.
  if (scheduler == "variopath" || scheduler == "fast") return CountsExchange::allgather;
  // deepep_*: deepseek-ai/DeepEP csrc/kernels/legacy/intranode.cu and
  // internode.cu, notify_dispatch: each rank writes its token count for
  // rank j (and its per-expert counts) into rank j's buffer before dispatch.
  if (scheduler == "deepep_nvlink_style" || scheduler == "deepep_pcie") return CountsExchange::alltoall;
  // fanout: MPI_Alltoallv (Open MPI's basic linear) is given recvcounts by
  // the caller; nccl: ncclSend/ncclRecv in a group, counts from the caller;
  // spreadout: shifts fixed by rank numbers, counts from the caller.
  if (scheduler == "fanout" || scheduler == "nccl" || scheduler == "spreadout") return CountsExchange::none;
  throw InternalError("counts_exchange: unknown scheduler " + scheduler);
}

bool plans_online(const std::string& scheduler) { return scheduler == "variopath" || scheduler == "fast"; }

sim::Schedule counts_exchange_schedule(const Topology& t, CountsExchange e) {
  const std::size_t n = t.gpus.size();
  sim::Schedule out;
  if (n < 2 || e == CountsExchange::none) return out;
  // Each step's flows on default routes, as fan-out posts them.
  auto add_step = [&](const sim::Demand& d) {
    sim::Schedule s = sim::fanout_schedule(t, d);
    for (sim::Step& step : s.steps) out.steps.push_back(std::move(step));
  };
  if (e == CountsExchange::alltoall) {
    sim::Demand d(n);
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t r = 0; r < n; ++r)
        if (s != r) d.set(s, r, 4.0);  // one int count (DeepEP's num_tokens_per_rank is int)
    add_step(d);
    return out;
  }
  const double row_bytes = 8.0 * static_cast<double>(n);  // n 64-bit counts
  for (std::size_t held = 1; held < n; held *= 2) {
    const std::size_t blocks = std::min(held, n - held);
    sim::Demand d(n);
    for (std::size_t r = 0; r < n; ++r) d.set(r, (r + n - held) % n, row_bytes * static_cast<double>(blocks));
    add_step(d);
  }
  return out;
}

double counts_exchange_us(const Topology& t, CountsExchange e, const sim::SimOptions& opts) {
  const sim::Schedule s = counts_exchange_schedule(t, e);
  if (s.steps.empty()) return 0.0;
  return sim::simulate(t, s, opts).time_us;
}

std::string PlanningCharge::text() const { return measured ? "measured" : fmt::format("{:g}", budget_us); }

PlanningCharge parse_planning_charge(const std::string& spec) {
  PlanningCharge c;
  if (spec == "measured") return c;
  char* end = nullptr;
  const double v = spec.empty() ? NAN : std::strtod(spec.c_str(), &end);
  if (spec.empty() || end != spec.c_str() + spec.size() || !std::isfinite(v) || v < 0 || v > 1e9)
    throw UsageError(fmt::format("--planning-us {}: expected measured or a budget in microseconds, 0 to 1e9", spec));
  c.measured = false;
  c.budget_us = v;
  return c;
}

}  // namespace vp::sim_cli
