// The length of one step (greedy.hpp, docs/planner.md "One step" 4) and
// the pieces its flows send.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/remaining_demand.hpp"
#include "vpcat/planner/plan.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class StepLength {
 public:
  // Weight of an intra-node flow's bytes in the choice of a step's length
  // when the step also has inter-node flows: the network lanes are the
  // scarce resource, so intra-node flows fill the step rather than cut it.
  static constexpr double kIntraWeight = 0.3;
  // Every step finishes at least 1 / kFinishDivisor of its flows (rounded
  // up, so at least one): the step length is chosen among the remaining
  // times from the k-th shortest on, k = ceil(flows / kFinishDivisor). A
  // step of c flows then retires at least c / 8 payloads, so a plan whose
  // steps keep most ports busy has at most about 8 x (payloads per GPU)
  // steps whatever the byte counts; without it a demand of distinct
  // remainders (random byte counts) finished one payload per step. The
  // flows that finish before the step ends leave their ports idle for the
  // rest of it: the price in plan time (docs/planner.md "Measurements").
  static constexpr std::size_t kFinishDivisor = 8;

  bool prepare(std::uint32_t gpus) noexcept { return times_.resize(gpus); }

  // The piece of a payload with `rem` bytes left that a flow sends in a
  // step of cap_bytes at its rate: all of it when it fits, else cap_bytes
  // cut to PlanOptions' alignment and minimum.
  static std::uint64_t piece(std::uint64_t rem, double cap_bytes, const PlanOptions& o) noexcept {
    if (static_cast<double>(rem) <= cap_bytes + 0.5) return rem;
    std::uint64_t c = static_cast<std::uint64_t>(cap_bytes);  // cap_bytes < rem < 2^63 here
    if (o.chunk_align_bytes > 1) c -= c % o.chunk_align_bytes;
    if (c < o.min_chunk_bytes) c = o.min_chunk_bytes;
    if (c == 0) c = o.chunk_align_bytes;
    if (c >= rem || rem - c < o.min_chunk_bytes) return rem;
    return c;
  }

  // The step length: among the flows' remaining times from the k-th
  // shortest on (kFinishDivisor) and the floor when at least as long, the
  // one that moves the most weighted bytes per microsecond once the step's
  // start-up latency is paid: bytes(tau) / (tau + latency), bytes(tau) =
  // sum of w_i rate_i min(t_i, tau). Every candidate finishes at least k
  // flows.
  double choose(const RemainingDemand& rem, const Flow* flows, std::size_t count, double latency_us,
                double floor_us) noexcept {
    const std::size_t n = rem.gpu_count();
    const std::uint64_t* R = rem.remaining();
    // Each flow's bytes count with the square of the load left on its busier
    // endpoint (relative to the busiest): the step suits the GPUs that bound
    // the plan, and short flows of nearly idle GPUs do not cut it short.
    double top = 1.0;
    bool any_inter = false;
    for (std::size_t k = 0; k < count; ++k) any_inter = any_inter || flows[k].a != flows[k].b;
    for (std::size_t k = 0; k < count; ++k) {
      const Flow& f = flows[k];
      const double load = static_cast<double>(rem.send_left(f.g) > rem.recv_left(f.h) ? rem.send_left(f.g) : rem.recv_left(f.h));
      if (load > top) top = load;
    }
    for (std::size_t k = 0; k < count; ++k) {
      const Flow& f = flows[k];
      const double load =
          static_cast<double>(rem.send_left(f.g) > rem.recv_left(f.h) ? rem.send_left(f.g) : rem.recv_left(f.h)) / top;
      const double w = (f.a == f.b && any_inter) ? kIntraWeight : 1.0;
      times_[k] = Timed{static_cast<double>(R[f.g * n + f.h]) / (f.gbps * 1e3), f.gbps * load * load * w};
    }
    std::sort(times_.data(), times_.data() + count, [](const Timed& x, const Timed& y) { return x.t < y.t; });
    double rate_after = 0.0;  // sum of the rates of flows k.. count-1
    for (std::size_t k = 0; k < count; ++k) rate_after += times_[k].gbps;
    double done = 0.0;        // rate x time of the flows before k
    double best = 0.0, best_tau = times_[count - 1].t;
    auto consider = [&](double tau) {
      if (tau < floor_us) return;
      const double eff = (done + rate_after * tau) / (tau + latency_us);
      if (eff > best * (1.0 + 1e-12)) best = eff, best_tau = tau;
    };
    const std::size_t finish = finish_count(count);  // >= 1
    if (floor_us >= times_[finish - 1].t && floor_us > times_[0].t && floor_us < times_[count - 1].t) {
      // The floor as a candidate: the flows shorter than it finish.
      double d = 0.0, r = rate_after;
      for (std::size_t k = 0; k < count && times_[k].t < floor_us; ++k) d += times_[k].gbps * times_[k].t, r -= times_[k].gbps;
      const double eff = (d + r * floor_us) / (floor_us + latency_us);
      best = eff, best_tau = floor_us;
    }
    for (std::size_t k = 0; k < count; ++k) {
      if (k + 1 >= finish) consider(times_[k].t);
      done += times_[k].gbps * times_[k].t;
      rate_after -= times_[k].gbps;
    }
    return best_tau;
  }
  // Append the step of flows[0, count), each sending its piece of a step
  // of tau microseconds at its solo rate, and take those bytes off `rem`.
  // Its expected time is the latency plus its longest piece.
  static PlanStatus append(const ClusterModel& m, RemainingDemand& rem, const Flow* flows, std::size_t count,
                           double tau, const PlanOptions& o, PodBuffer<PlanStep>& steps,
                           PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    if (!transfers.reserve(transfers.size() + count) || !steps.reserve(steps.size() + 1))
      return PlanStatus::at(PlanError::out_of_memory, "plan", "growing the plan to %zu transfers",
                            transfers.size() + count);
    const std::size_t n = rem.gpu_count();
    const std::uint64_t* R = rem.remaining();
    PlanStep step;
    step.first = transfers.size();
    step.count = static_cast<std::uint32_t>(count);
    transfers.resize(step.first + count);  // reserved above: cannot fail
    PlanTransfer* out = transfers.data() + step.first;
    double longest = 0.0;
    for (std::size_t k = 0; k < count; ++k) {
      const Flow& f = flows[k];
      const std::uint64_t c = piece(R[f.g * n + f.h], f.gbps * 1e3 * tau, o);
      rem.take(m, f, c);
      const double t = static_cast<double>(c) / (f.gbps * 1e3);
      if (t > longest) longest = t;
      PlanTransfer& x = out[k];
      x.src = x.origin = f.g;
      x.dst = x.final = f.h;
      x.bytes = c;
      x.solo_gbps = f.gbps;
      x.src_nic = f.i;
      x.dst_nic = f.j;
      x.reserved = 0;
    }
    step.expected_us = o.latency_us + longest;
    expected_us += step.expected_us;
    steps.push_back(step);
    return {};
  }

  // The least number of flows a step of `count` flows finishes.
  static std::size_t finish_count(std::size_t count) noexcept {
    const std::size_t k = (count + kFinishDivisor - 1) / kFinishDivisor;
    return k < 1 ? 1 : k;
  }

 private:
  struct Timed {
    double t, gbps;  // remaining time at the solo rate; the rate, weighted
  };
  PodBuffer<Timed> times_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
