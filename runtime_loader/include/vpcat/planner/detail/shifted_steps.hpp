// Shifted permutations (docs/planner.md "Plan shapes"), a candidate of the
// default plan: shift s (s = 1 .. n-1) sends every payload g -> (g + s) mod n
// on its default route (nearest NICs), as SpreadOut (MPI's pairwise
// exchange) does; a step holds `group` consecutive shifts at once (1: one
// permutation per step, every GPU sending and receiving one transfer; more:
// as NCCL keeps several peers in flight, fewer start-ups, more crowding). A
// step without bytes is no step. The transfers of a step may share a NIC
// lane, a GPU's port or overload a switch uplink or a root complex: such a
// step is flagged shared (PlanStep::shared), and its expectation is the
// estimator's under the machine model (estimator.hpp). A step that shares
// nothing is a channel step like any other.
//
// Cost: one pass over the non-zero payloads per call of expected_us() or
// emit(), O(payloads x route length); no scratch of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/resources.hpp"
#include "vpcat/planner/detail/estimator.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/detail/shared_step.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class ShiftedSteps {
 public:
  // Shifts per step the planner tries (docs/planner.md): 1, 4, 16, 64, ...
  // below n - 1 (n - 1 at once is the shared step).
  static constexpr std::uint32_t kGroupFactor = 4;

  // The sum of the steps' expectations for the n x n demand R (diagonal
  // ignored), `group` shifts per step; +infinity as soon as it passes
  // `give_up_us` (the caller has a faster plan). 0 for an all-zero demand.
  static double expected_us(const ClusterModel& m, const Resources& res, StepEstimator& est, const std::uint64_t* R,
                            double latency_us, double give_up_us, std::uint32_t group) noexcept {
    double total = 0.0;
    const std::uint32_t n = m.gpu_count();
    for (std::uint32_t s = 1; s < n; s += group) {
      total += shifts(m, res, est, R, s, group, latency_us, [](const RouteRef&, std::uint64_t, double) {}).us;
      if (total > give_up_us) return std::numeric_limits<double>::infinity();
    }
    return total;
  }

  // Append the steps for R; adds their expectations to expected_us.
  static PlanStatus emit(const ClusterModel& m, const Resources& res, StepEstimator& est, const std::uint64_t* R,
                         double latency_us, std::uint32_t group, PodBuffer<PlanStep>& steps,
                         PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    const std::uint32_t n = m.gpu_count();
    for (std::uint32_t s = 1; s < n; s += group) {
      const std::size_t most = std::size_t{n} * group;
      if (!transfers.reserve(transfers.size() + most) || !steps.reserve(steps.size() + 1))
        return PlanStatus::at(PlanError::out_of_memory, "plan", "growing the plan to %zu transfers",
                              transfers.size() + most);
      PlanStep step;
      step.first = transfers.size();
      const StepEstimator::Result r =
          shifts(m, res, est, R, s, group, latency_us, [&](const RouteRef& p, std::uint64_t bytes, double solo) {
            transfers.push_back(direct_transfer(p, bytes, solo));  // reserved above: at most n per shift
          });
      if (r.transfers == 0) continue;
      step.count = static_cast<std::uint32_t>(r.transfers);
      step.ports = r.ports;
      step.shared = r.sharing ? 1 : 0;
      step.expected_us = r.us;
      expected_us += r.us;
      steps.push_back(step);  // reserved above
    }
    return {};
  }

 private:
  // Estimate shifts first .. first + group - 1 (those below n) of R as one
  // step, calling f(route, bytes, solo) per transfer.
  template <class F>
  static StepEstimator::Result shifts(const ClusterModel& m, const Resources& res, StepEstimator& est,
                                      const std::uint64_t* R, std::uint32_t first, std::uint32_t group,
                                      double latency_us, F&& f) noexcept {
    const std::uint32_t n = m.gpu_count();
    est.begin();
    for (std::uint32_t s = first; s < n && s - first < group; ++s) {
      for (std::uint32_t g = 0; g < n; ++g) {
        const std::uint32_t h = g + s < n ? g + s : g + s - n;
        const std::uint64_t bytes = R[std::size_t{g} * n + h];
        if (bytes == 0) continue;
        RouteRef p;
        const double solo = SharedStep::default_route(m, g, h, false, p);
        est.add(m, res, p, bytes, solo);
        f(p, bytes, solo);
      }
    }
    return est.finish(res, latency_us);
  }
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
