// The shared step (docs/planner.md "Plan shapes"): every payload of the
// demand posted at once, each on its default route (nearest NICs), the
// transfers contending for what they share as the hardware arbitrates it
// (fan-out). It is not a channel, and no rate is planned: a transfer's
// solo_gbps is what its route gives it alone.
//
// What the hardware achieves is close to the step's congestion: the most
// bytes any resource (a tracked link or forwarder of a node, a GPU's own
// link in either direction, a NIC lane in either direction with its port, a
// spine uplink in either direction) must carry over what it delivers under
// the machine model (estimator.hpp), and no transfer faster than its solo
// rate. Measured against the simulator's ideal max-min model on the
// evaluation platforms (docs/evaluation.md), fan-out finished within 1-7% of
// that figure, so expected_us() returns it with kMargin; it is the step's
// expected_us, an expectation, not a bound. The planner (planner.hpp)
// compares it with the other candidates' expected times.
//
// Cost: a pass over the non-zero payloads per call of expected_us() (two
// with nic_loopback: one per set of routes) or emit(), O(payloads x route
// length); scratch sized once per catalog.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/resources.hpp"
#include "vpcat/planner/detail/estimator.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class SharedStep {
 public:
  // Size the scratch; false when memory is short.
  bool prepare(const ClusterModel& m, const Resources& res) noexcept {
    n_ = m.gpu_count();
    return estimator_.prepare(res);
  }

  // Per plan() call, before any other use: the resources (capacities and
  // curves under the call's machine model) and PlanOptions::nic_loopback:
  // the step may send every intra-node payload whose peer-to-peer route
  // loads a tracked resource through its GPUs' nearest NICs instead, when
  // they are two NICs of one switch (as DeepEP's PCIe mode sends every byte
  // through the NICs). It does so when that is expected shorter: the NIC
  // lanes may be the busier resource.
  void begin_call(const Resources& res, bool loopback) noexcept {
    res_ = &res;
    loopback_ = loopback;
  }

  // Expected time of the shared step for the n x n demand R (diagonal
  // ignored): kMargin x the estimator's (estimator.hpp); 0 for an all-zero
  // demand.
  static constexpr double kMargin = 1.03;
  double expected_us(const ClusterModel& m, const std::uint64_t* R, double latency_us) noexcept {
    return choose(m, R, latency_us);
  }

  // Append the shared step for R. `counted`: expected_us() was the last call
  // and R has not changed since. `generate`: R is the whole demand, and the
  // step may be a generated one (every shift at once, plan.hpp) when its
  // routes are the default ones (no loopback chosen).
  PlanStatus emit(const ClusterModel& m, const std::uint64_t* R, double latency_us, bool counted, bool generate,
                  PodBuffer<PlanStep>& steps, PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    if (!counted) choose(m, R, latency_us);
    if (now_.transfers == 0) return {};
    const bool listed = !generate || looping_;
    if (!transfers.reserve(transfers.size() + (listed ? now_.transfers : 0)) || !steps.reserve(steps.size() + 1))
      return PlanStatus::at(PlanError::out_of_memory, "plan", "growing the plan to %zu transfers",
                            transfers.size() + now_.transfers);
    PlanStep step;
    step.first = listed ? transfers.size() : 1;
    step.shifts = listed ? 0 : n_ - 1;
    step.count = static_cast<std::uint32_t>(now_.transfers);
    step.ports = now_.ports;
    step.shared = 1;
    if (listed)
      for_each_payload(m, R, [&](const RouteRef& p, std::uint64_t bytes, double solo) {
        transfers.push_back(direct_transfer(p, bytes, solo));  // reserved above
      });
    step.expected_us = kMargin * now_.us;
    expected_us += step.expected_us;
    steps.push_back(step);
    return {};
  }

 private:
  // f(route, bytes, solo rate) for every non-zero off-diagonal entry, with
  // its default route: the intra-node route (or, while looping_, a loopback
  // through the nearest NICs where begin_call() allows), or the nearest NIC
  // on each side.
  template <class F>
  void for_each_payload(const ClusterModel& m, const std::uint64_t* R, F&& f) const noexcept {
    for (std::uint32_t g = 0; g < n_; ++g) {
      const std::uint64_t* row = R + std::size_t{g} * n_;
      for (std::uint32_t h = 0; h < n_; ++h) {
        if (row[h] == 0 || g == h) continue;
        RouteRef p;
        const double solo = default_route(m, g, h, looping_, p);
        f(p, row[h], solo);
      }
    }
  }

 public:
  // The default route of g -> h into p (see for_each_payload); returns its
  // solo rate. `loop`: a loopback where allowed and useful.
  static double default_route(const ClusterModel& m, std::uint32_t g, std::uint32_t h, bool loop,
                              RouteRef& p) noexcept {
    const std::uint32_t a = m.node_of_gpu(g), b = m.node_of_gpu(h);
    const NodeModel& na = m.node(a);
    const TypeModel& ta = m.type(na.type);
    p.g = g, p.h = h, p.a = a, p.b = b, p.i = kNoNic, p.j = kNoNic;
    if (a == b) {
      const RouteEntry& peer = m.gg(ta, g - na.first_gpu, h - na.first_gpu);
      if (loop && peer.shared_count > 0 && ta.usable > 1) {
        const std::uint16_t i = m.send_prefs(ta, g - na.first_gpu)[0].nic;
        const std::uint16_t j = m.recv_prefs(ta, h - na.first_gpu)[0].nic;
        if (m.can_loop(a, i, j)) {
          p.i = i, p.j = j;
          return m.inter_gbps(a, g - na.first_gpu, i, a, j, h - na.first_gpu);
        }
      }
      return peer.gbps;
    }
    const NodeModel& nb = m.node(b);
    p.i = m.send_prefs(ta, g - na.first_gpu)[0].nic;
    p.j = m.recv_prefs(m.type(nb.type), h - nb.first_gpu)[0].nic;
    return m.inter_gbps(a, g - na.first_gpu, p.i, b, p.j, h - nb.first_gpu);
  }

 private:
  // Estimate the routes without loopbacks and, when allowed, with them;
  // keep (now_, looping_) the shorter, and return kMargin x it.
  double choose(const ClusterModel& m, const std::uint64_t* R, double latency_us) noexcept {
    looping_ = false;
    now_ = estimate(m, R, latency_us);
    if (now_.transfers == 0) return 0.0;
    if (loopback_) {
      looping_ = true;
      const StepEstimator::Result looped = estimate(m, R, latency_us);
      if (looped.us < now_.us)
        now_ = looped;
      else
        looping_ = false;
    }
    return kMargin * now_.us;
  }

  StepEstimator::Result estimate(const ClusterModel& m, const std::uint64_t* R, double latency_us) noexcept {
    estimator_.begin();
    for_each_payload(m, R, [&](const RouteRef& p, std::uint64_t bytes, double solo) {
      estimator_.add(m, *res_, p, bytes, solo);
    });
    return estimator_.finish(*res_, latency_us);
  }

  std::uint32_t n_ = 0;
  const Resources* res_ = nullptr;  // begin_call()
  StepEstimator estimator_;
  StepEstimator::Result now_;  // the routes chosen (looping_ says which)
  bool loopback_ = false;      // loopbacks allowed (begin_call)
  bool looping_ = false;       // the routes of now_ loop
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
