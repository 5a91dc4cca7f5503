// Lower bounds on any plan of a remaining demand (greedy.hpp, planner.hpp):
// the cuts every byte must cross whatever the schedule.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/remaining_demand.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class Bounds {
 public:
  bool prepare(const ClusterModel& m) noexcept { return up_.resize(m.switches()) && down_.resize(m.switches()); }

  // A lower bound on any plan of the remaining demand r, latency excluded:
  // the busiest GPU link (bytes a GPU sends or receives over its link's
  // capacity), the busiest node NIC set (inter-node bytes a node sends or
  // receives over the sum of its usable NIC lanes' capacities) and, on a
  // leaf/spine fabric, the busiest leaf uplink (bytes between its nodes and
  // other leaves' over its capacity).
  double endpoint_us(const ClusterModel& m, const RemainingDemand& r) noexcept {
    const std::uint32_t nn = r.node_count();
    double worst = 0.0;
    auto at_least = [&](double bytes, double gbps) {
      if (gbps > 0 && bytes / (gbps * 1e3) > worst) worst = bytes / (gbps * 1e3);
    };
    for (std::uint32_t a = 0; a < nn; ++a) {
      const NodeModel& na = m.node(a);
      const TypeModel& t = m.type(na.type);
      const double* leaf = m.leaf_caps(t);
      for (std::uint32_t g = 0; g < t.gpus; ++g) {
        at_least(static_cast<double>(r.send_left(na.first_gpu + g)), leaf[g]);
        at_least(static_cast<double>(r.recv_left(na.first_gpu + g)), leaf[t.gpus + g]);
      }
      double out = 0.0, in = 0.0;
      for (std::uint64_t lanes = t.usable_mask; lanes != 0; lanes &= lanes - 1) {
        const std::uint32_t k = lowest(lanes);
        out += leaf[2 * t.gpus + k];
        in += leaf[2 * t.gpus + t.nics + k];
      }
      at_least(static_cast<double>(r.out_left(a)), out);
      at_least(static_cast<double>(r.in_left(a)), in);
    }
    if (m.spine() && nn > 0 && m.node_switch(0) != kNone) {  // leaf/spine
      for (std::uint32_t k = 0; k < m.switches(); ++k) up_[k] = down_[k] = 0.0;
      for (std::uint32_t a = 0; a < nn; ++a) {
        const std::uint32_t sa = m.node_switch(a);
        for (std::uint32_t b = 0; b < nn; ++b) {
          const std::uint64_t v = a == b ? 0 : r.volume(a, b);
          if (v == 0 || sa == m.node_switch(b)) continue;
          up_[sa] += static_cast<double>(v);
          down_[m.node_switch(b)] += static_cast<double>(v);
        }
      }
      for (std::uint32_t k = 0; k < m.switches(); ++k) {
        at_least(up_[k], m.spine_cap(k));
        at_least(down_[k], m.spine_cap(k));
      }
    }
    return worst;
  }

 private:
  PodBuffer<double> up_, down_;  // per switch: bytes to / from other leaves
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
