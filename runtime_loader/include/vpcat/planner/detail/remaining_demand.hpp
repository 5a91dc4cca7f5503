// The remaining demand of a plan being built (greedy.hpp): bytes left per
// GPU pair, and what the greedy's choices read from it at O(1): per GPU and
// per node the bytes left to send and receive, node-to-node volumes, masks
// of who still has bytes for whom, and the priority orders (GPUs of a node
// and source nodes, heaviest first).
//
// Memory: n^2 x 8 bytes for the matrix, n x nodes masks; sized once per
// catalog (prepare_demand) and reused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/demand.hpp"
#include "vpcat/planner/demand_check.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class RemainingDemand {
 public:
  // Size the state for `m`; false when memory is short.
  bool prepare_demand(const ClusterModel& m) noexcept {
    n_ = m.gpu_count();
    nn_ = m.node_count();
    words_ = (nn_ + 63) / 64;
    const std::size_t n = n_, nn = nn_;
    return R_.resize(n * n) && dmask_.resize(n * nn) && smask_.resize(nn * nn) && V_.resize(nn * nn) &&
           send_left_.resize(n) && recv_left_.resize(n) && inter_send_left_.resize(n) && inter_senders_.resize(nn) &&
           out_left_.resize(nn) && in_left_.resize(nn) && intra_left_.resize(nn) && send_order_.resize(n) &&
           recv_order_.resize(n) && node_order_.resize(nn) && vbits_.resize(nn * words_);
  }

  // Check the demand (demand_check.hpp, the one check) and copy it into the
  // remaining-bytes state.
  PlanStatus load(const ClusterModel& m, const Demand& d) noexcept {
    if (PlanStatus s = check_demand_shape(d, n_, m.subset()); !s.ok()) return s;
    const std::size_t n = n_;
    total_left_ = 0;
    switch (d.shape()) {
      case Demand::Shape::dense_u64: {
        const std::uint64_t* src = d.dense_u64();
        for (std::size_t s = 0; s < n; ++s) {
          for (std::size_t t = 0; t < n; ++t) {
            const std::uint64_t v = s == t ? 0 : src[s * n + t];
            if (!add_demand_bytes(total_left_, v)) return demand_overflow(v, s, t);
            R_[s * n + t] = v;
          }
        }
        break;
      }
      case Demand::Shape::dense_f64: {
        const double* src = d.dense_f64();
        for (std::size_t s = 0; s < n; ++s) {
          for (std::size_t t = 0; t < n; ++t) {
            const double x = src[s * n + t];
            if (PlanStatus st = check_demand_value(x, s, t); !st.ok()) return st;
            const std::uint64_t v = s == t ? 0 : static_cast<std::uint64_t>(x);
            if (!add_demand_bytes(total_left_, v)) return demand_overflow(v, s, t);
            R_[s * n + t] = v;
          }
        }
        break;
      }
      case Demand::Shape::sparse: {
        std::memset(R_.data(), 0, n * n * sizeof(std::uint64_t));
        const DemandEntry* e = d.entries();
        for (std::size_t k = 0; k < d.entry_count(); ++k) {
          if (PlanStatus st = check_demand_entry(e[k], k, n_, m.subset()); !st.ok()) return st;
          if (e[k].src == e[k].dst) continue;
          if (!add_demand_bytes(total_left_, e[k].bytes)) return demand_overflow(e[k].bytes, e[k].src, e[k].dst).with_entry(k);
          R_[std::size_t{e[k].src} * n + e[k].dst] += e[k].bytes;
        }
        break;
      }
      case Demand::Shape::none: break;
    }
    return summarize(m);
  }

  std::uint64_t total_bytes() const noexcept { return loaded_bytes_; }
  std::uint64_t total_left() const noexcept { return total_left_; }
  // The remaining demand, GPUs x GPUs row-major (the loaded demand before run()).
  const std::uint64_t* remaining() const noexcept { return R_.data(); }
  // Bytes GPU g has left to send / to receive; node a to send to / receive
  // from other nodes; node a to node b (a != b).
  std::uint64_t send_left(std::uint32_t g) const noexcept { return send_left_[g]; }
  std::uint64_t recv_left(std::uint32_t g) const noexcept { return recv_left_[g]; }
  std::uint64_t out_left(std::uint32_t a) const noexcept { return out_left_[a]; }
  std::uint64_t in_left(std::uint32_t a) const noexcept { return in_left_[a]; }
  std::uint64_t volume(std::uint32_t a, std::uint32_t b) const noexcept { return V_[std::size_t{a} * nn_ + b]; }
  // Bytes left between the GPUs of node a.
  std::uint64_t intra_bytes_left(std::uint32_t a) const noexcept { return intra_left_[a]; }
  std::uint32_t gpu_count() const noexcept { return n_; }
  std::uint32_t node_count() const noexcept { return nn_; }

  // Take the bytes of planned transfers off the remaining demand (load()ed
  // again before): what is left after a prefix of a plan. Only the matrix
  // (remaining()) is updated, not the totals and masks run() keeps: call
  // load() again before run() or endpoint_bound_us().
  void subtract(const PlanTransfer* t, std::size_t count) noexcept {
    for (std::size_t k = 0; k < count; ++k) R_[std::size_t{t[k].origin} * n_ + t[k].final] -= t[k].bytes;
  }

  // Take c bytes of flow f off the remaining demand (f's payload, its GPUs'
  // and nodes' totals, and the masks of what is left).
  void take(const ClusterModel& m, const Flow& f, std::uint64_t c) noexcept {
    const std::size_t n = n_, nn = nn_;
    std::uint64_t& rem = R_[f.g * n + f.h];
    rem -= c;
    send_left_[f.g] -= c;
    recv_left_[f.h] -= c;
    total_left_ -= c;
    if (rem == 0) {
      const std::uint32_t lh = f.h - m.node(f.b).first_gpu;
      std::uint64_t& dm = dmask_[std::size_t{f.g} * nn + f.b];
      dm &= ~bit(lh);
      if (dm == 0) smask_[std::size_t{f.a} * nn + f.b] &= ~bit(f.g - m.node(f.a).first_gpu);
    }
    if (f.a != f.b) {
      if ((V_[std::size_t{f.a} * nn + f.b] -= c) == 0) vbits_[std::size_t{f.a} * words_ + f.b / 64] &= ~bit(f.b % 64);
      out_left_[f.a] -= c;
      in_left_[f.b] -= c;
      inter_left_ -= c;
      if ((inter_send_left_[f.g] -= c) == 0) inter_senders_[f.a] &= ~bit(f.g - m.node(f.a).first_gpu);
    } else {
      intra_left_[f.a] -= c;
    }
  }

 protected:
  // ---- loading ---------------------------------------------------------------------
  // Masks, node-to-node volumes, GPU and node totals; checks that every
  // node with inter-node bytes has a usable NIC.
  PlanStatus summarize(const ClusterModel& m) noexcept {
    const std::size_t n = n_, nn = nn_;
    loaded_bytes_ = total_left_;
    std::memset(recv_left_.data(), 0, n * sizeof(std::uint64_t));
    std::memset(V_.data(), 0, nn * nn * sizeof(std::uint64_t));
    std::memset(smask_.data(), 0, nn * nn * sizeof(std::uint64_t));
    std::memset(out_left_.data(), 0, nn * sizeof(std::uint64_t));
    std::memset(in_left_.data(), 0, nn * sizeof(std::uint64_t));
    std::memset(intra_left_.data(), 0, nn * sizeof(std::uint64_t));
    std::memset(inter_senders_.data(), 0, nn * sizeof(std::uint64_t));
    std::memset(vbits_.data(), 0, nn * words_ * sizeof(std::uint64_t));
    inter_left_ = 0;
    for (std::size_t s = 0; s < n; ++s) {
      const std::uint32_t a = m.node_of_gpu(static_cast<std::uint32_t>(s));
      const std::uint32_t lg = static_cast<std::uint32_t>(s) - m.node(a).first_gpu;
      const std::uint64_t* row = R_.data() + s * n;
      std::uint64_t row_total = 0, inter = 0;
      for (std::uint32_t b = 0; b < nn_; ++b) {
        const NodeModel& nb = m.node(b);
        std::uint64_t sum = 0, mask = 0;
        for (std::uint32_t h = 0; h < nb.gpus; ++h) {
          const std::uint64_t v = row[nb.first_gpu + h];
          sum += v;
          recv_left_[nb.first_gpu + h] += v;
          if (v != 0) mask |= bit(h);
        }
        dmask_[s * nn + b] = mask;
        if (mask != 0) smask_[std::size_t{a} * nn + b] |= bit(lg);
        row_total += sum;
        if (b == a) {
          intra_left_[a] += sum;
        } else {
          V_[std::size_t{a} * nn + b] += sum;
          if (sum != 0) vbits_[std::size_t{a} * words_ + b / 64] |= bit(b % 64);
          out_left_[a] += sum;
          in_left_[b] += sum;
          inter += sum;
        }
      }
      send_left_[s] = row_total;
      inter_send_left_[s] = inter;
      inter_left_ += inter;
      if (inter != 0) inter_senders_[a] |= bit(lg);
    }
    for (std::uint32_t a = 0; a < nn_; ++a) {
      if ((out_left_[a] > 0 || in_left_[a] > 0) && m.type_of(a).usable == 0)
        return PlanStatus::at(PlanError::unroutable, "demand",
                              "node %u %s %llu bytes %s other nodes but has no NIC that carries GPU traffic", a,
                              out_left_[a] > 0 ? "sends" : "receives",
                              static_cast<unsigned long long>(out_left_[a] > 0 ? out_left_[a] : in_left_[a]),
                              out_left_[a] > 0 ? "to" : "from");
    }
    return {};
  }

  // ---- priorities ------------------------------------------------------------------
  // ---- priorities ------------------------------------------------------------------
  // Stable insertion sort of ids by key[base + id] descending: cheap on the
  // nearly sorted orders one step leaves behind.
  static void sort_desc(std::uint32_t* ids, std::uint32_t count, const std::uint64_t* key) noexcept {
    for (std::uint32_t i = 1; i < count; ++i) {
      const std::uint32_t x = ids[i];
      const std::uint64_t k = key[x];
      std::uint32_t j = i;
      for (; j > 0 && key[ids[j - 1]] < k; --j) ids[j] = ids[j - 1];
      ids[j] = x;
    }
  }
  // Node a's GPUs (local indexes) by bytes left to send / to receive.
  void sort_node_gpus(const ClusterModel& m, std::uint32_t a) noexcept {
    const NodeModel& na = m.node(a);
    sort_desc(send_order_.data() + na.first_gpu, na.gpus, send_left_.data() + na.first_gpu);
    sort_desc(recv_order_.data() + na.first_gpu, na.gpus, recv_left_.data() + na.first_gpu);
  }
  void init_orders(const ClusterModel& m) noexcept {
    for (std::uint32_t a = 0; a < nn_; ++a) {
      const NodeModel& na = m.node(a);
      for (std::uint32_t g = 0; g < na.gpus; ++g) send_order_[na.first_gpu + g] = recv_order_[na.first_gpu + g] = g;
      node_order_[a] = a;
      sort_node_gpus(m, a);
    }
    sort_desc(node_order_.data(), nn_, out_left_.data());
    since_sorted_ = 0;
  }

  std::uint32_t n_ = 0, nn_ = 0;
  std::uint32_t words_ = 0;               // 64-bit words of a node bitset
  PodBuffer<std::uint64_t> R_;            // remaining bytes, GPUs x GPUs
  PodBuffer<std::uint64_t> dmask_;        // [g][b]: bit h when g has bytes for GPU h of node b
  PodBuffer<std::uint64_t> smask_;        // [a][b]: bit g when GPU g of a has bytes for node b
  PodBuffer<std::uint64_t> V_;            // remaining inter-node bytes, nodes x nodes
  PodBuffer<std::uint64_t> vbits_;        // [a]: bit b when V[a][b] > 0
  PodBuffer<std::uint64_t> send_left_, recv_left_, inter_send_left_;  // per GPU
  PodBuffer<std::uint64_t> inter_senders_;                            // per node: GPUs with inter-node bytes
  PodBuffer<std::uint64_t> out_left_, in_left_, intra_left_;          // per node
  PodBuffer<std::uint32_t> send_order_, recv_order_;  // per node segment: local GPU indexes by priority
  PodBuffer<std::uint32_t> node_order_;               // nodes by outbound bytes left
  std::uint32_t since_sorted_ = 0;                    // steps since node_order_ was sorted
  std::uint64_t total_left_ = 0, inter_left_ = 0, loaded_bytes_ = 0;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
