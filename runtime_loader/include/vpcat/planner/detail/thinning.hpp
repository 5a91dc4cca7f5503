// The shared step's busiest resources as the crowding thins (docs/planner.md
// "Expected time"). The estimator (estimator.hpp) takes a step's initial
// crowding throughout: a NIC lane that starts with 48 transfers delivers its
// 48-transfer rate until the last byte. Under the judge's max-min sharing
// the transfers leave as they finish and, on a resource whose machine-model
// curve loses throughput to crowding, the rest speed up. When a resource's
// transfers differ in size (MoE demands), that matters: its time is
//
//   sum over j of (b_j - b_(j-1)) x c_j / rate(c_j),   c_j = k - j + 1,
//
// the transfers' sizes b_1 <= ... <= b_k in turn finishing, c_j still
// running, rate(c) the resource's delivered rate at c transfers whose solo
// rates add up to S_j (Resources::delivered_gbps), and never more than S_j
// (each transfer at most its solo rate). Under the ideal model, or when the
// sizes are equal, it equals bytes / delivered at the initial count: the
// estimate changes only where the model says crowding costs and the
// crowding falls.
//
// Used for the few resources whose initial-crowding times are the longest
// (StepEstimator::hottest); the others keep theirs. Node resources only
// (GPU links, NIC lanes, tracked resources of a node): a spine uplink's
// transfers are not collected. A resource with more transfers than its
// slot holds keeps its initial-crowding time. Scratch sized once per
// catalog: kMaxResources slots of 2 x (most GPUs of a node) x GPUs
// transfers, the most any node resource carries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/resources.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class Thinning {
 public:
  static constexpr std::size_t kMaxResources = 8;

  bool prepare(const ClusterModel& m, const Resources& res) noexcept {
    std::uint32_t most = 0;
    for (std::uint32_t a = 0; a < m.node_count(); ++a)
      if (m.type_of(a).gpus > most) most = m.type_of(a).gpus;
    per_slot_ = 2 * std::size_t{most} * m.gpu_count();
    return slot_of_.assign(res.size(), kFree) && flows_.resize(kMaxResources * per_slot_);
  }

  // Collect the transfers of `ids` (count <= kMaxResources; spine resources
  // are left out) in the add() calls that follow.
  void begin(const Resources& res, const std::size_t* ids, std::size_t count) noexcept {
    used_ = 0;
    for (std::size_t s = 0; s < count && used_ < kMaxResources; ++s) {
      if (ids[s] >= res.spine_base()) continue;
      ids_[used_] = ids[s];
      size_[used_] = 0;
      slot_of_[ids[s]] = static_cast<std::uint8_t>(used_++);
    }
  }
  bool collecting() const noexcept { return used_ > 0; }

  // One transfer of the step (every transfer, as given to the estimator).
  void add(const ClusterModel& m, const Resources& res, const RouteRef& p, std::uint64_t bytes,
           double solo_gbps) noexcept {
    res.for_each(m, p, [&](std::size_t r) {
      const std::uint8_t s = slot_of_[r];
      if (s == kFree) return;
      if (size_[s] < per_slot_) flows_[s * per_slot_ + size_[s]] = Flow{static_cast<double>(bytes), solo_gbps};
      ++size_[s];  // past per_slot_: overflowed, not thinned
    });
  }

  // The longest processor-sharing time (us) among the collected resources
  // (initial_us[s]: slot s's time at the initial crowding, kept where the
  // slot overflowed); resets the slots.
  double finish(const Resources& res, const double* initial_us) noexcept {
    double most = 0.0;
    for (std::size_t s = 0; s < used_; ++s) {
      const double t = size_[s] > per_slot_ ? initial_us[s] : shared_us(res, ids_[s], flows_.data() + s * per_slot_, size_[s]);
      if (t > most) most = t;
      slot_of_[ids_[s]] = kFree;
    }
    used_ = 0;
    return most;
  }

 private:
  static constexpr std::uint8_t kFree = 0xff;
  struct Flow {
    double bytes, solo;
  };

  static double shared_us(const Resources& res, std::size_t r, Flow* f, std::size_t k) noexcept {
    std::sort(f, f + k, [](const Flow& x, const Flow& y) { return x.bytes < y.bytes; });
    double solo = 0.0;  // of the transfers still running
    for (std::size_t i = 0; i < k; ++i) solo += f[i].solo;
    double us = 0.0, done = 0.0;
    for (std::size_t j = 0; j < k; ++j) {
      const std::uint32_t running = static_cast<std::uint32_t>(k - j);
      if (f[j].bytes > done) {
        double gbps = res.delivered_gbps(r, running, solo);
        if (gbps > solo) gbps = solo;
        us += (f[j].bytes - done) * running / (gbps * 1e3);
        done = f[j].bytes;
      }
      solo -= f[j].solo;
    }
    return us;
  }

  std::size_t per_slot_ = 0, used_ = 0;
  std::size_t ids_[kMaxResources] = {}, size_[kMaxResources] = {};
  PodBuffer<std::uint8_t> slot_of_;
  PodBuffer<Flow> flows_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
