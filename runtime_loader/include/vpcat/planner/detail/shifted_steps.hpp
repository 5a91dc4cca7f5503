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
// emit() (none for a compact emit of steps ShiftedGroups estimated),
// O(payloads x route length); no scratch of its own.
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

// Every payload of shift s of the n x n demand R (GPU g to g + s mod n; empty
// pairs skipped) on its default route: f(route, bytes, solo).
template <class F>
inline void for_each_shift_payload(const ClusterModel& m, const std::uint64_t* R, std::uint32_t s, F&& f) noexcept {
  const std::uint32_t n = m.gpu_count();
  for (std::uint32_t g = 0; g < n; ++g) {
    const std::uint32_t h = g + s < n ? g + s : g + s - n;
    const std::uint64_t bytes = R[std::size_t{g} * n + h];
    if (bytes == 0) continue;
    RouteRef p;
    const double solo = SharedStep::default_route(m, g, h, false, p);
    f(p, bytes, solo);
  }
}

// The same for shifts first .. first + count - 1, those below n, in order:
// one shifted step's payloads (a generated step's, plan.hpp).
template <class F>
inline void for_each_shifts_payload(const ClusterModel& m, const std::uint64_t* R, std::uint32_t first,
                                    std::uint32_t count, F&& f) noexcept {
  for (std::uint32_t s = first; s < m.gpu_count() && s - first < count; ++s) for_each_shift_payload(m, R, s, f);
}

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
  // `known` (may be null): the estimates of the first `known_count` steps,
  // already made for R and `group` (ShiftedGroups::steps); the others are
  // made here. `compact`: generated steps (PlanStep::shifts), no transfer
  // listed (plan.hpp).
  static PlanStatus emit(const ClusterModel& m, const Resources& res, StepEstimator& est, const std::uint64_t* R,
                         double latency_us, std::uint32_t group, const StepEstimator::Result* known,
                         std::size_t known_count, bool compact, PodBuffer<PlanStep>& steps,
                         PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    const std::uint32_t n = m.gpu_count();
    std::size_t index = 0;
    for (std::uint32_t s = 1; s < n; s += group, ++index) {
      const std::size_t most = compact ? 0 : std::size_t{n} * group;
      if (!transfers.reserve(transfers.size() + most) || !steps.reserve(steps.size() + 1))
        return PlanStatus::at(PlanError::out_of_memory, "plan", "growing the plan to %zu transfers",
                              transfers.size() + most);
      const std::uint32_t width = n - s < group ? n - s : group;
      PlanStep step;
      step.first = compact ? s : transfers.size();
      step.shifts = compact ? width : 0;
      auto list = [&](const RouteRef& p, std::uint64_t bytes, double solo) {
        if (!compact) transfers.push_back(direct_transfer(p, bytes, solo));  // reserved above: n per shift
      };
      StepEstimator::Result r;
      if (index < known_count) {
        r = known[index];
        if (r.transfers != 0 && !compact)
          for_each_shifts_payload(m, R, s, width, list);
      } else {
        r = shifts(m, res, est, R, s, group, latency_us, list);
      }
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
    est.begin();
    for_each_shifts_payload(m, R, first, group, [&](const RouteRef& p, std::uint64_t bytes, double solo) {
      est.add(m, res, p, bytes, solo);
      f(p, bytes, solo);
    });
    return est.finish(res, latency_us);
  }
};

// The shifted candidate at every group size the planner tries (1, 4, 16,
// ... below n - 1, those whose step count fits max_steps) in one pass over
// the payloads, where a pass per size re-added every payload per size: the
// sizes nest (a step of 4G shifts is 4 consecutive steps of G), and a
// step's estimate is built from sums over its transfers (StepEstimator), so
// only the smallest size adds payloads; a step of the next size is the sum
// of the smaller steps it holds (StepEstimator::merge_into, O(resources a
// step touches)). Each size is given up once its sum passes give_up_us;
// the pass stops when all are. The steps are those ShiftedSteps::emit
// makes, in the same order, so the best size is the one a size-by-size
// search finds (a size it gave up against an earlier best could not have
// beaten it: sums only grow), up to the last bit of a sum of solo rates.
//
// The estimates of every step of the sizes still live at the end are kept
// (steps()): the emission of the winner (ShiftedSteps::emit) estimates
// nothing again.
//
// Scratch: an estimator and a step list per size, sized once per catalog.
class ShiftedGroups {
 public:
  // 1, 4, ..., 4^7 = 16,384: every size below n - 1 for n up to the
  // planner's 16,384 GPUs.
  static constexpr std::size_t kMaxGroups = 8;

  bool prepare(const ClusterModel& m, const Resources& res) noexcept {
    for (std::size_t k = 0; k < kMaxGroups; ++k)
      if (!est_[k].prepare(res) || !steps_[k].reserve(m.gpu_count())) return false;
    return true;
  }

  // The estimates of the steps of `group` shifts each the last best_us()
  // made, in order; fewer than its steps (none) when that size was given up
  // or not tried.
  const StepEstimator::Result* steps(std::uint32_t group, std::size_t& count) const noexcept {
    count = 0;
    for (std::size_t k = 0; k < count_; ++k)
      if (size_[k] == group && live_[k]) return count = steps_[k].size(), steps_[k].data();
    return nullptr;
  }

  // The least expected time of the shifted candidate over the group sizes
  // for the n x n demand R (diagonal ignored), its size in `group`;
  // +infinity (group 1) when every size passed give_up_us or none fits
  // max_steps.
  double best_us(const ClusterModel& m, const Resources& res, const std::uint64_t* R, double latency_us,
                 double give_up_us, std::uint32_t max_steps, std::uint32_t& group) noexcept {
    const std::uint32_t n = m.gpu_count();
    std::uint32_t* size = size_;
    bool* live = live_;
    double total[kMaxGroups];
    std::size_t count = 0, alive = 0;
    for (std::uint32_t g = 1; (g == 1 || g + 1 < n) && count < kMaxGroups; g *= ShiftedSteps::kGroupFactor) {
      if ((n - 1 + g - 1) / g > max_steps) continue;  // more steps than allowed
      size[count] = g, total[count] = 0.0, live[count] = true;
      est_[count].begin();
      steps_[count].clear();
      ++count, ++alive;
    }
    count_ = count;
    for (std::uint32_t s = 1; s < n && alive > 0; ++s) {
      for_each_shift_payload(m, R, s, [&](const RouteRef& p, std::uint64_t bytes, double solo) {
        est_[0].add(m, res, p, bytes, solo);
      });
      // A step of size G holds shifts kG + 1 .. (k + 1)G: it ends at a
      // multiple of G, or at the last shift; it goes into the step of the
      // next size (which ends there or later) before it is finished. Sizes
      // given up still feed the larger ones.
      for (std::size_t k = 0; k < count; ++k) {
        if (s % size[k] != 0 && s + 1 < n) break;  // nor does any larger size end here
        if (k + 1 < count) est_[k].merge_into(est_[k + 1]);
        const StepEstimator::Result r = est_[k].finish(res, latency_us);  // clears the estimator
        if (!live[k]) continue;
        steps_[k].push_back(r);  // reserved: at most n - 1 steps
        total[k] += r.us;
        if (total[k] > give_up_us) live[k] = false, --alive;
      }
    }
    for (std::size_t k = 0; k < count; ++k) est_[k].finish(res, latency_us);  // steps left open when all gave up
    if (alive == 0) count_ = 0;  // no step list is whole
    double best = std::numeric_limits<double>::infinity();
    group = 1;
    for (std::size_t k = 0; k < count; ++k)
      if (live[k] && total[k] < best) best = total[k], group = size[k];
    return best;
  }

 private:
  StepEstimator est_[kMaxGroups];
  PodBuffer<StepEstimator::Result> steps_[kMaxGroups];  // per size: its steps' estimates while live
  std::uint32_t size_[kMaxGroups] = {};
  bool live_[kMaxGroups] = {};
  std::size_t count_ = 0;  // sizes of the last best_us()
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
