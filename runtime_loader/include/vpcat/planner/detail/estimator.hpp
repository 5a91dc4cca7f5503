// The estimator (docs/planner.md "Expected time"): a step's expected time
// under the machine model (machine_model.hpp), from its transfers alone:
//
//   latency + max( the longest transfer at its route's solo rate,
//                  max over resources r of bytes(r) / delivered(r) )
//
// delivered(r) being r's capacity, degraded by its curve at the number of
// transfers on it and by its chunk factor only where their solo rates add up
// to more than the capacity (the judge's rule). A step is *sharing* when it
// is not a channel: a GPU sends or receives more than one transfer, a NIC
// lane carries more than one, or a resource is oversubscribed at solo rates.
// A plan's expectation is the sum of its steps' (as if a barrier separated
// them; the MPI executor lets a rank start its next step as soon as its own
// transfers are done, so the simulator's rank-synchronised time is at most
// about that).
//
// It is an expectation, not a bound: under max-min sharing a resource's
// transfers leave as they finish and the rest speed up, and the count k
// falls; the estimate takes the step's initial crowding throughout.
//
// Cost: O(route length) per transfer added; finish() visits only the
// resources the step touched. Scratch sized once per catalog.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/resources.hpp"
#include "vpcat/planner/plan.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class StepEstimator {
 public:
  bool prepare(const Resources& r) noexcept {
    if (!count_.assign(r.size(), 0) || !solo_.assign(r.size(), 0.0) || !bytes_.assign(r.size(), 0.0) ||
        !touched_.reserve(r.size()))
      return false;
    touched_.clear();
    begin();
    return true;
  }

  // Start a new step (the previous one must have been finished).
  void begin() noexcept {
    transfers_ = 0;
    longest_solo_us_ = 0.0;
  }

  // One transfer of the step: `bytes` on route p at solo rate `solo_gbps`.
  void add(const ClusterModel& m, const Resources& res, const RouteRef& p, std::uint64_t bytes,
           double solo_gbps) noexcept {
    ++transfers_;
    const double b = static_cast<double>(bytes);
    const double solo_us = b / (solo_gbps * 1e3);
    if (solo_us > longest_solo_us_) longest_solo_us_ = solo_us;
    res.for_each(m, p, [&](std::size_t r) {
      if (count_[r]++ == 0) touched_.push_back(r);  // reserved: at most every resource once
      solo_[r] += solo_gbps;
      bytes_[r] += b;
    });
  }

  // Add the step built so far to `to`'s (both prepared for the same
  // resources): `to` then holds the transfers of both, as if each had been
  // added to it. O(resources touched). The byte sums are exact (integers
  // below 2^53); a sum of solo rates may differ from the one-by-one sum in
  // its last bit.
  void merge_into(StepEstimator& to) const noexcept {
    for (std::size_t r : touched_) {
      if (to.count_[r] == 0) to.touched_.push_back(r);  // reserved: at most every resource once
      to.count_[r] += count_[r];
      to.solo_[r] += solo_[r];
      to.bytes_[r] += bytes_[r];
    }
    to.transfers_ += transfers_;
    if (longest_solo_us_ > to.longest_solo_us_) to.longest_solo_us_ = longest_solo_us_;
  }

  struct Result {
    double us = 0.0;          // expected time, latency included; 0 for an empty step
    std::uint32_t ports = 0;  // most transfers at one GPU and direction
    bool sharing = false;     // not a channel (see above)
    std::size_t transfers = 0;
  };
  // The step's expectation; clears what it touched (ready for begin()).
  Result finish(const Resources& res, double latency_us) noexcept {
    Result out;
    out.transfers = transfers_;
    double busiest = longest_solo_us_;
    for (std::size_t r : touched_) {
      const std::uint32_t k = count_[r];
      if (r >= res.gpu_base() && r < res.nic_base()) {
        if (k > out.ports) out.ports = k;
      } else if (r >= res.nic_base() && r < res.spine_base() && k > 1) {
        out.sharing = true;  // the fabric rule: one flow per NIC lane
      }
      if (res.oversubscribed(r, k, solo_[r])) out.sharing = true;
      const double t = bytes_[r] / (res.delivered_gbps(r, k, solo_[r]) * 1e3);
      if (t > busiest) busiest = t;
      count_[r] = 0, solo_[r] = 0.0, bytes_[r] = 0.0;
    }
    touched_.clear();
    if (out.ports > 1) out.sharing = true;
    out.us = transfers_ == 0 ? 0.0 : latency_us + busiest;
    begin();
    return out;
  }

  // The sum of the steps' expectations of `plan` (a barrier between steps).
  double plan_us(const ClusterModel& m, const Resources& res, const Plan& plan, double latency_us) noexcept {
    double total = 0.0;
    for (std::size_t s = 0; s < plan.step_count(); ++s) {
      begin();
      const PlanTransfer* t = plan.step_transfers(s);
      for (std::uint32_t k = 0; k < plan.step(s).count; ++k)
        add(m, res, Resources::route_of(m, t[k]), t[k].bytes, t[k].solo_gbps);
      total += finish(res, latency_us).us;
    }
    return total;
  }

 private:
  PodBuffer<std::uint32_t> count_;
  PodBuffer<double> solo_, bytes_;
  PodBuffer<std::size_t> touched_;
  std::size_t transfers_ = 0;
  double longest_solo_us_ = 0.0;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
