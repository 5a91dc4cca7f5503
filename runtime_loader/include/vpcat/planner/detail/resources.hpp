// Every resource a transfer of a plan can load, in one index space, with its
// capacity and, under a MachineModel (machine_model.hpp), its loss curve:
//   [0, loads)            the tracked resources of every node (ClusterModel:
//                         switch uplinks, root ports, inter-socket links,
//                         forwarding components), at NodeModel::load_first;
//   gpu_base + 2g (+1)    GPU g's own link up (down);
//   nic_base + 2k (+1)    global NIC k's lane towards (from) the network,
//                         its port included;
//   spine_base + 2s (+1)  switch s's spine uplink (downlink).
// A route touches each resource at most once. Used by the estimator
// (estimator.hpp) for every candidate plan shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/machine_model.hpp"
#include "vpcat/planner/plan.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// A transfer's route: its GPUs, their nodes, the NICs (kNoNic both: the
// intra-node peer-to-peer route; both set on one node: a NIC loopback).
struct RouteRef {
  std::uint32_t g = 0, h = 0, a = 0, b = 0;
  std::uint16_t i = kNoNic, j = kNoNic;
};

// The plan's transfer of `bytes` straight from p.g to p.h on route `p`, at
// solo rate `solo` (GB/s): no relay, so origin and final are its ends.
inline PlanTransfer direct_transfer(const RouteRef& p, std::uint64_t bytes, double solo) noexcept {
  PlanTransfer x;
  x.src = x.origin = p.g;
  x.dst = x.final = p.h;
  x.bytes = bytes;
  x.solo_gbps = solo;
  x.src_nic = p.i;
  x.dst_nic = p.j;
  return x;
}

class Resources {
 public:
  // Size and fill the capacities for `m`; false when memory is short.
  bool prepare(const ClusterModel& m) noexcept {
    loads_ = m.load_count();
    gpu_base_ = loads_;
    nic_base_ = gpu_base_ + 2 * std::size_t{m.gpu_count()};
    spine_base_ = nic_base_ + 2 * static_cast<std::size_t>(m.nic_total());
    const std::size_t total = spine_base_ + 2 * std::size_t{m.switches()};
    if (!cap_.resize(total) || !slope_.resize(total) || !floor_.resize(total) || !chunk_.resize(total) ||
        !kind_.resize(total) || !cpu_.resize(total))
      return false;
    for (std::size_t r = 0; r < total; ++r) kind_[r] = Kind::link, cpu_[r] = kNone;
    for (std::uint32_t a = 0; a < m.node_count(); ++a) {
      const NodeModel& na = m.node(a);
      const TypeModel& t = m.type(na.type);
      const double* caps = m.caps(t);
      const std::uint32_t* cpus = m.resource_cpus(t);
      for (std::uint32_t r = 0; r < t.shared; ++r) {
        cap_[na.load_first + r] = caps[r];
        if (cpus[r] != kNone) kind_[na.load_first + r] = Kind::forwarder, cpu_[na.load_first + r] = cpus[r];
      }
      const double* leaf = m.leaf_caps(t);
      for (std::uint32_t g = 0; g < t.gpus; ++g) {
        cap_[gpu_base_ + 2 * std::size_t{na.first_gpu + g}] = leaf[g];
        cap_[gpu_base_ + 2 * std::size_t{na.first_gpu + g} + 1] = leaf[t.gpus + g];
      }
      for (std::uint32_t k = 0; k < t.nics; ++k) {
        cap_[nic_base_ + 2 * (na.first_nic + k)] = leaf[2 * t.gpus + k];
        cap_[nic_base_ + 2 * (na.first_nic + k) + 1] = leaf[2 * t.gpus + t.nics + k];
        kind_[nic_base_ + 2 * (na.first_nic + k)] = kind_[nic_base_ + 2 * (na.first_nic + k) + 1] = Kind::nic;
      }
    }
    for (std::uint32_t k = 0; k < m.switches(); ++k) {
      cap_[spine_base_ + 2 * std::size_t{k}] = m.spine() ? m.spine_cap(k) : std::numeric_limits<double>::infinity();
      cap_[spine_base_ + 2 * std::size_t{k} + 1] = cap_[spine_base_ + 2 * std::size_t{k}];
    }
    set_model(m, MachineModel::ideal());
    return true;
  }

  // Every resource's curve and chunk factor under `mm` (O(resources)).
  void set_model(const ClusterModel& m, const MachineModel& mm) noexcept {
    for (std::size_t r = 0; r < cap_.size(); ++r) {
      LossCurve c;
      if (kind_[r] == Kind::forwarder)
        c = mm.forwarder_curve(m.cpu_model(cpu_[r]));
      else if (kind_[r] == Kind::nic)
        c = mm.nic;
      slope_[r] = c.on ? c.slope : 0.0;
      floor_[r] = c.on ? c.floor : 1.0;
      chunk_[r] = cap_[r] < std::numeric_limits<double>::infinity() ? mm.chunk_factor(cap_[r]) : 1.0;
    }
  }

  std::size_t size() const noexcept { return cap_.size(); }
  std::size_t gpu_base() const noexcept { return gpu_base_; }
  std::size_t nic_base() const noexcept { return nic_base_; }
  std::size_t spine_base() const noexcept { return spine_base_; }
  double cap(std::size_t r) const noexcept { return cap_[r]; }

  // GB/s resource r delivers to `count` transfers whose solo rates add up to
  // `solo_sum` GB/s: its capacity, degraded by its curve and chunk factor
  // only when they oversubscribe it (the judge's rule, contention.hpp).
  static constexpr double kRateTolerance = 1e-9;
  bool oversubscribed(std::size_t r, std::uint32_t count, double solo_sum) const noexcept {
    return count >= 2 && solo_sum > cap_[r] * (1.0 + kRateTolerance);
  }
  double delivered_gbps(std::size_t r, std::uint32_t count, double solo_sum) const noexcept {
    if (!oversubscribed(r, count, solo_sum)) return cap_[r];
    double eta = 1.0 / (1.0 + slope_[r] * static_cast<double>(count - 1));
    if (eta < floor_[r]) eta = floor_[r];
    return cap_[r] * eta * chunk_[r];
  }

  // The route of a plan transfer.
  static RouteRef route_of(const ClusterModel& m, const PlanTransfer& t) noexcept {
    RouteRef p;
    p.g = t.src, p.h = t.dst;
    p.a = m.node_of_gpu(t.src), p.b = m.node_of_gpu(t.dst);
    p.i = t.src_nic, p.j = t.dst_nic;
    return p;
  }

  // v(resource index) for every resource of p's route.
  template <class V>
  void for_each(const ClusterModel& m, const RouteRef& p, V&& v) const noexcept {
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

 private:
  enum class Kind : std::uint8_t { link, forwarder, nic };
  std::size_t loads_ = 0, gpu_base_ = 0, nic_base_ = 0, spine_base_ = 0;
  PodBuffer<double> cap_, slope_, floor_, chunk_;
  PodBuffer<Kind> kind_;
  PodBuffer<std::uint32_t> cpu_;  // forwarders: ClusterModel::cpu_model() index
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
