// The shared step (docs/planner.md), only with PlanOptions::allow_shared:
// every payload of the demand posted at once, each on its default route
// (nearest NICs), the transfers contending for what they share as the
// hardware arbitrates it (fan-out). It is not a channel, and no rate is
// planned: a transfer's solo_gbps is what its route gives it alone.
//
// What the hardware achieves is close to the step's congestion: the most
// bytes any resource (a tracked link or forwarder of a node, a GPU's own
// link in either direction, a NIC lane in either direction with its port, a
// spine uplink in either direction) must carry over its capacity, and no
// transfer faster than its solo rate. Measured against the simulator's
// ideal max-min model on the evaluation platforms (docs/evaluation.md),
// fan-out finished within 1-7% of that figure, so expected_us() returns it
// with kMargin; it is the step's expected_us, an expectation, not a bound.
// The planner (planner.hpp) compares it with the channel steps' expected
// time to keep the shorter plan.
//
// Cost: a pass over the non-zero payloads per call of expected_us() (two
// with nic_loopback: one per set of routes) or emit(), O(payloads x route
// length); scratch sized once per catalog.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include "vpcat/planner/buffer.hpp"
#include "vpcat/planner/cluster_model.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class SharedStep {
 public:
  // Size the scratch and the capacity of every resource; false when memory is short.
  bool prepare(const ClusterModel& m) noexcept {
    n_ = m.gpu_count();
    shared_ = m.load_count();
    gpu_base_ = shared_;
    nic_base_ = gpu_base_ + 2 * std::size_t{n_};
    spine_base_ = nic_base_ + 2 * static_cast<std::size_t>(m.nic_total());
    const std::size_t total = spine_base_ + 2 * std::size_t{m.switches()};
    if (!cap_.resize(total) || !now_.count.resize(total) || !now_.bytes.resize(total) ||
        !other_.count.resize(total) || !other_.bytes.resize(total))
      return false;
    for (std::uint32_t a = 0; a < m.node_count(); ++a) {
      const NodeModel& na = m.node(a);
      const TypeModel& t = m.type(na.type);
      const double* caps = m.caps(t);
      for (std::uint32_t r = 0; r < t.shared; ++r) cap_[na.load_first + r] = caps[r];
      const double* leaf = m.leaf_caps(t);
      for (std::uint32_t g = 0; g < t.gpus; ++g) {
        cap_[gpu_base_ + 2 * std::size_t{na.first_gpu + g}] = leaf[g];
        cap_[gpu_base_ + 2 * std::size_t{na.first_gpu + g} + 1] = leaf[t.gpus + g];
      }
      for (std::uint32_t k = 0; k < t.nics; ++k) {
        cap_[nic_base_ + 2 * (na.first_nic + k)] = leaf[2 * t.gpus + k];
        cap_[nic_base_ + 2 * (na.first_nic + k) + 1] = leaf[2 * t.gpus + t.nics + k];
      }
    }
    for (std::uint32_t k = 0; k < m.switches(); ++k) {
      cap_[spine_base_ + 2 * std::size_t{k}] = m.spine() ? m.spine_cap(k) : std::numeric_limits<double>::infinity();
      cap_[spine_base_ + 2 * std::size_t{k} + 1] = cap_[spine_base_ + 2 * std::size_t{k}];
    }
    return true;
  }

  // PlanOptions::nic_loopback: the step may send every intra-node payload
  // whose peer-to-peer route loads a tracked resource through its GPUs'
  // nearest NICs instead, when they are two NICs of one switch (as DeepEP's
  // PCIe mode sends every byte through the NICs). It does so when that is
  // expected shorter: the NIC lanes may be the busier resource.
  void set_loopback(bool allowed) noexcept { loopback_ = allowed; }

  // Expected time of the shared step over fair sharing for the n x n
  // demand R (diagonal ignored): kMargin x (latency + congestion); 0 for an
  // all-zero demand.
  static constexpr double kMargin = 1.03;
  double expected_us(const ClusterModel& m, const std::uint64_t* R, double latency_us) noexcept {
    return choose(m, R, latency_us);
  }

  // Append the shared step for R. `counted`: expected_us() was the last call
  // and R has not changed since (its per-resource counts still hold).
  PlanStatus emit(const ClusterModel& m, const std::uint64_t* R, double latency_us, bool counted,
                  PodBuffer<PlanStep>& steps, PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    if (!counted) choose(m, R, latency_us);
    if (now_.payloads == 0) return {};
    if (!transfers.reserve(transfers.size() + now_.payloads) || !steps.reserve(steps.size() + 1))
      return PlanStatus::at(PlanError::out_of_memory, "plan", "growing the plan to %zu transfers",
                            transfers.size() + now_.payloads);
    PlanStep step;
    step.first = transfers.size();
    step.count = static_cast<std::uint32_t>(now_.payloads);
    step.ports = now_.ports;
    step.shared = 1;
    for_each_payload(m, R, [&](const Payload& p) {
      PlanTransfer x;
      x.src = x.origin = p.g;
      x.dst = x.final = p.h;
      x.bytes = p.bytes;
      x.solo_gbps = p.solo;
      x.src_nic = p.i;
      x.dst_nic = p.j;
      transfers.push_back(x);  // reserved above
    });
    step.expected_us = expectation(now_, latency_us);
    expected_us += step.expected_us;
    steps.push_back(step);
    return {};
  }

 private:
  struct Payload {
    std::uint32_t g, h, a, b;
    std::uint16_t i, j;  // NICs (kNoNic: intra-node)
    std::uint64_t bytes;
    double solo;
  };

  // f(payload) for every non-zero off-diagonal entry, with its default
  // route: the intra-node route (or, while looping_, a loopback through the
  // nearest NICs where set_loopback() says), or the nearest NIC on each side.
  template <class F>
  void for_each_payload(const ClusterModel& m, const std::uint64_t* R, F&& f) const noexcept {
    for (std::uint32_t g = 0; g < n_; ++g) {
      const std::uint32_t a = m.node_of_gpu(g);
      const NodeModel& na = m.node(a);
      const TypeModel& ta = m.type(na.type);
      const std::uint64_t* row = R + std::size_t{g} * n_;
      for (std::uint32_t h = 0; h < n_; ++h) {
        if (row[h] == 0 || g == h) continue;
        const std::uint32_t b = m.node_of_gpu(h);
        Payload p{g, h, a, b, kNoNic, kNoNic, row[h], 0.0};
        if (a == b) {
          const RouteEntry& peer = m.gg(ta, g - na.first_gpu, h - na.first_gpu);
          p.solo = peer.gbps;
          if (looping_ && peer.shared_count > 0 && ta.usable > 1) {
            const std::uint16_t i = m.send_prefs(ta, g - na.first_gpu)[0].nic;
            const std::uint16_t j = m.recv_prefs(ta, h - na.first_gpu)[0].nic;
            if (m.can_loop(a, i, j)) {
              p.i = i, p.j = j;
              p.solo = m.inter_gbps(a, g - na.first_gpu, i, a, j, h - na.first_gpu);
            }
          }
        } else {
          const NodeModel& nb = m.node(b);
          p.i = m.send_prefs(ta, g - na.first_gpu)[0].nic;
          p.j = m.recv_prefs(m.type(nb.type), h - nb.first_gpu)[0].nic;
          p.solo = m.inter_gbps(a, g - na.first_gpu, p.i, b, p.j, h - nb.first_gpu);
        }
        f(p);
      }
    }
  }

  // v(resource index) for every resource of p's route.
  template <class V>
  void for_each_resource(const ClusterModel& m, const Payload& p, V&& v) const noexcept {
    const NodeModel &na = m.node(p.a), &nb = m.node(p.b);
    const TypeModel &ta = m.type(na.type), &tb = m.type(nb.type);
    auto segment = [&](const NodeModel& nd, const RouteEntry& r) {
      const std::uint32_t* ids = m.shared_ids(r);
      for (std::uint32_t k = 0; k < r.shared_count; ++k) v(std::size_t{nd.load_first} + ids[k]);
    };
    v(gpu_base_ + 2 * std::size_t{p.g});
    v(gpu_base_ + 2 * std::size_t{p.h} + 1);
    if (p.i == kNoNic) {
      segment(na, m.gg(ta, p.g - na.first_gpu, p.h - na.first_gpu));
      return;
    }
    segment(na, m.gn(ta, p.g - na.first_gpu, p.i));
    segment(nb, m.ng(tb, p.j, p.h - nb.first_gpu));
    v(nic_base_ + 2 * (na.first_nic + p.i));
    v(nic_base_ + 2 * (nb.first_nic + p.j) + 1);
    if (m.spine()) {
      const std::uint32_t si = m.switch_of(p.a, p.i), sj = m.switch_of(p.b, p.j);
      if (si != sj) {
        v(spine_base_ + 2 * std::size_t{si});
        v(spine_base_ + 2 * std::size_t{sj} + 1);
      }
    }
  }

  // Count the routes without loopbacks and, when allowed, with them; keep
  // (counted, looping_ set) the shorter expectation, and return it. Each
  // variant is counted once: the loser's counts are set aside, not redone.
  double choose(const ClusterModel& m, const std::uint64_t* R, double latency_us) noexcept {
    looping_ = false;
    count(m, R, now_);
    if (now_.payloads == 0) return 0.0;
    const double direct = expectation(now_, latency_us);
    if (!loopback_) return direct;
    std::swap(now_, other_);
    looping_ = true;
    count(m, R, now_);
    const double looped = expectation(now_, latency_us);
    if (looped < direct) return looped;
    std::swap(now_, other_);
    looping_ = false;
    return direct;
  }

  // Per resource of one set of routes: the payloads and bytes through it.
  struct Counts {
    PodBuffer<std::uint32_t> count;
    PodBuffer<double> bytes;
    std::size_t payloads = 0;
    std::uint32_t ports = 0;         // most payloads at one GPU and direction
    double longest_solo_us = 0.0;    // the longest payload at its solo rate
  };

  void count(const ClusterModel& m, const std::uint64_t* R, Counts& c) const noexcept {
    for (std::size_t k = 0; k < c.bytes.size(); ++k) c.count[k] = 0, c.bytes[k] = 0.0;
    c.payloads = 0;
    c.longest_solo_us = 0.0;
    for_each_payload(m, R, [&](const Payload& p) {
      ++c.payloads;
      const double solo_us = static_cast<double>(p.bytes) / (p.solo * 1e3);
      if (solo_us > c.longest_solo_us) c.longest_solo_us = solo_us;
      for_each_resource(m, p, [&](std::size_t r) {
        ++c.count[r];
        c.bytes[r] += static_cast<double>(p.bytes);
      });
    });
    c.ports = 0;
    for (std::size_t k = gpu_base_; k < nic_base_; ++k)
      if (c.count[k] > c.ports) c.ports = c.count[k];
  }

  // kMargin x (latency + congestion) from the counts of count().
  double expectation(const Counts& c, double latency_us) const noexcept {
    double busiest = c.longest_solo_us;
    for (std::size_t k = 0; k < cap_.size(); ++k) {
      const double t = c.bytes[k] / (cap_[k] * 1e3);
      if (t > busiest) busiest = t;
    }
    return kMargin * (latency_us + busiest);
  }

  std::uint32_t n_ = 0, shared_ = 0;
  std::size_t gpu_base_ = 0, nic_base_ = 0, spine_base_ = 0;
  PodBuffer<double> cap_;  // per resource: capacity
  Counts now_, other_;     // the routes chosen (looping_ says which); the other variant's
  bool loopback_ = false;  // loopbacks allowed (set_loopback)
  bool looping_ = false;   // the routes counted last loop
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
