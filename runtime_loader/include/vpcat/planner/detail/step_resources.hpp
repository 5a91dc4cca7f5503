// What one step of the greedy has used so far (greedy.hpp): per node its
// free NIC lanes and GPU ports, the load (sum of solo rates) on each shared
// resource of its PCIe tree, the spine uplinks' loads, the endpoints found
// without room in the current pass, and the step's flows. A flow is only
// added where every resource keeps room for its solo rate (headroom), so
// the step stays a channel: contention-free at solo rates, one-port.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/remaining_demand.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class StepResources : public RemainingDemand {
 public:
  // Size the state for `m` (after prepare_demand); false when memory is short.
  bool prepare_resources(const ClusterModel& m) noexcept {
    const std::size_t n = n_, nn = nn_;
    if (!node_switch_.resize(nn) || !usable_.resize(nn) || !all_gpus_.resize(nn) || !slow_up_.resize(2 * nn) ||
        !slow_down_.resize(2 * nn) || !near_send_by_nic_.resize(nn) || !near_recv_by_nic_.resize(nn))
      return false;
    for (std::uint32_t a = 0; a < nn_; ++a) {
      const TypeModel& t = m.type_of(a);
      near_send_by_nic_[a] = m.near_send_gpus_of(t);
      near_recv_by_nic_[a] = m.near_recv_gpus_of(t);
      node_switch_[a] = m.spine() ? m.node_switch(a) : kNone;
      usable_[a] = t.usable_mask;
      all_gpus_[a] = t.gpus == 64 ? ~std::uint64_t{0} : bit(t.gpus) - 1;
      for (int pass = 0; pass < 2; ++pass) {
        slow_up_[2 * a + static_cast<std::uint32_t>(pass)] = min2(t.slow_up[pass], m.min_spine_gbps());
        slow_down_[2 * a + static_cast<std::uint32_t>(pass)] = t.slow_down[pass];
      }
    }
    if (!(node_stamp_.assign(nn, 0) && send_free_.resize(nn) && recv_free_.resize(nn) && gpu_send_free_.resize(nn) &&
          gpu_recv_free_.resize(nn) && dead_stamp_.assign(nn, 0) && send_dead_.resize(nn) && recv_dead_.resize(nn) &&
          loads_.resize(m.load_count()) && spine_up_.resize(m.switches()) && spine_down_.resize(m.switches()) &&
          sorted_stamp_.assign(nn, 0) && down_open_bits_.resize(words_) &&
          leaf_bits_.assign(std::size_t{m.switches() + 1} * words_, 0) && flows_.reserve(n) && touched_.reserve(nn)))
      return false;
    for (std::uint32_t b = 0; b < nn_; ++b)
      if (node_switch_[b] != kNone) leaf_bits_[std::size_t{node_switch_[b]} * words_ + b / 64] |= bit(b % 64);
    return true;
  }

 protected:
  // A new step: every lane, port and resource free.
  void begin_step_resources(const ClusterModel& m) noexcept {
    if (++stamp_ == 0) {  // wrapped: forget every old stamp
      for (std::uint32_t a = 0; a < nn_; ++a) node_stamp_[a] = sorted_stamp_[a] = 0;
      stamp_ = 1;
    }
    flows_.clear();
    touched_.clear();
    for (std::uint32_t a = 0; a < nn_; ++a) {
      send_free_[a] = recv_free_[a] = usable_[a];
      gpu_send_free_[a] = gpu_recv_free_[a] = all_gpus_[a];
    }
    for (std::uint32_t k = 0; k < m.switches(); ++k) spine_up_[k] = spine_down_[k] = 0.0;
    for (std::uint32_t w = 0; w < words_; ++w) down_open_bits_[w] = ~std::uint64_t{0};
  }
  // A pass: nearest NICs only, or any NIC. Endpoints found dead (no allowed
  // NIC lane with room for the slowest flow) stay dead for the pass.
  void begin_pass(bool nearest_only) noexcept {
    nearest_only_ = nearest_only;
    if (++pass_stamp_ == 0) {
      for (std::uint32_t a = 0; a < nn_; ++a) dead_stamp_[a] = 0;
      pass_stamp_ = 1;
    }
  }
  // First use of node a in this step: no load on its shared resources.
  void touch(const ClusterModel& m, std::uint32_t a) noexcept {
    if (node_stamp_[a] == stamp_) return;
    node_stamp_[a] = stamp_;
    const TypeModel& t = m.type_of(a);
    double* load = loads_.data() + m.node(a).load_first;
    for (std::uint32_t r = 0; r < t.shared; ++r) load[r] = 0.0;
    touched_.push_back(a);  // reserved in prepare(): cannot fail
  }
  std::uint64_t& send_dead(std::uint32_t a) noexcept { return dead(a), send_dead_[a]; }
  std::uint64_t& recv_dead(std::uint32_t a) noexcept { return dead(a), recv_dead_[a]; }
  void dead(std::uint32_t a) noexcept {
    if (dead_stamp_[a] == pass_stamp_) return;
    dead_stamp_[a] = pass_stamp_;
    send_dead_[a] = recv_dead_[a] = 0;
  }
  // GPUs of node a that may still send to another node in this pass.
  std::uint64_t live_senders(std::uint32_t a) noexcept {
    std::uint64_t live = gpu_send_free_[a] & inter_senders_[a] & ~send_dead(a);
    if (nearest_only_) live &= near_gpus(a, send_free_[a], true);
    return live;
  }
  // Receivers of node b that may take a flow in this pass.
  std::uint64_t live_receivers(std::uint32_t b) noexcept {
    std::uint64_t live = gpu_recv_free_[b] & ~recv_dead(b);
    if (nearest_only_) live &= near_gpus(b, recv_free_[b], false);
    return live;
  }
  // GPUs of node a that have a nearest NIC among `lanes`.
  std::uint64_t near_gpus(std::uint32_t a, std::uint64_t lanes, bool send) const noexcept {
    const std::uint64_t* by_nic = send ? near_send_by_nic_[a] : near_recv_by_nic_[a];
    std::uint64_t out = 0;
    for (; lanes != 0; lanes &= lanes - 1) out |= by_nic[lowest(lanes)];
    return out;
  }
  // Room left on a route's shared resources: the largest rate it still takes
  // (a verified route lists each resource once, SPEC §6.5, so that is also
  // what add_load charges).
  double headroom(const ClusterModel& m, std::uint32_t node, const RouteEntry& r) const noexcept {
    if (r.shared_count == 0) return std::numeric_limits<double>::infinity();
    const double* load = loads_.data() + m.node(node).load_first;
    const double* cap = m.caps(m.type_of(node));
    const std::uint32_t* ids = m.shared_ids(r);
    double room = std::numeric_limits<double>::infinity();
    for (std::uint32_t k = 0; k < r.shared_count; ++k) {
      const double x = cap[ids[k]] * (1.0 + 1e-12) - load[ids[k]];
      if (x < room) room = x;
    }
    return room;
  }
  // Account a flow at its solo rate `gbps` on the route's shared resources.
  void add_load(const ClusterModel& m, std::uint32_t node, const RouteEntry& r, double gbps) noexcept {
    const std::uint32_t first = m.node(node).load_first;
    const std::uint32_t* ids = m.shared_ids(r);
    for (std::uint32_t k = 0; k < r.shared_count; ++k) loads_[first + ids[k]] += gbps;
  }
  // Spine room between two nodes whose NICs all sit on one switch each
  // (leaf_spine): the largest rate a flow a -> b may still have; infinite
  // when no spine is crossed or when the crossing depends on the NICs (rail).
  double pair_spine_room(const ClusterModel& m, std::uint32_t a, std::uint32_t b) const noexcept {
    if (!m.spine()) return std::numeric_limits<double>::infinity();
    const std::uint32_t sa = m.node_switch(a), sb = m.node_switch(b);
    if (sa == kNone || sa == sb) return std::numeric_limits<double>::infinity();
    const double up = m.spine_cap(sa) * (1.0 + 1e-12) - spine_up_[sa];
    const double down = m.spine_cap(sb) * (1.0 + 1e-12) - spine_down_[sb];
    return up < down ? up : down;
  }
  // The slowest flow a -> b can have in this pass.
  double slowest_flow(std::uint32_t a, std::uint32_t b) const noexcept {
    const std::uint32_t pass = nearest_only_ ? 0 : 1;
    return min2(slow_up_[2 * a + pass], slow_down_[2 * b + pass]);
  }

  PodBuffer<std::uint32_t> node_switch_;               // per node: its NICs' switch (leaf_spine), else kNone
  PodBuffer<std::uint64_t> usable_, all_gpus_;         // per node: usable NICs, all its GPUs
  PodBuffer<double> slow_up_, slow_down_;              // per node and pass: slowest flow out / in
  PodBuffer<const std::uint64_t*> near_send_by_nic_, near_recv_by_nic_;  // per node: per NIC, the GPUs it is nearest to
  PodBuffer<std::uint64_t> leaf_bits_;                 // [k]: the nodes of leaf k (leaf_spine)
  PodBuffer<std::uint32_t> node_stamp_, dead_stamp_, sorted_stamp_;
  PodBuffer<std::uint64_t> send_free_, recv_free_;          // per node: free NIC lanes
  PodBuffer<std::uint64_t> gpu_send_free_, gpu_recv_free_;  // per node: GPUs not yet sending / receiving
  PodBuffer<std::uint64_t> send_dead_, recv_dead_;          // per node: GPUs out for the pass
  PodBuffer<double> loads_;                  // per node resource: the solo rates of the step's flows through it
  PodBuffer<double> spine_up_, spine_down_;  // per switch: the step's rates up to / down from the spine
  PodBuffer<std::uint64_t> down_open_bits_;  // nodes whose leaf downlink still has room (leaf_spine)
  PodBuffer<Flow> flows_;                    // the step's flows
  PodBuffer<std::uint32_t> touched_;         // nodes used in the step
  bool nearest_only_ = true;
  std::uint32_t stamp_ = 0, pass_stamp_ = 0;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
