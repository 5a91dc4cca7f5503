// The planner's algorithm (docs/planner.md): greedy channel packing at two
// levels, one step at a time.
//
// Per step:
//  (a) node level: source nodes in order of remaining inter-node bytes
//      (heaviest first) each pick destination nodes, heaviest remaining
//      node-to-node bytes first, among a window of nodes that rotates with
//      the step, the nodes with the most inbound bytes left and, when those
//      are all taken, every node that still has a free receive lane; a node
//      sends at most one flow per NIC and receives at most one per NIC;
//  (b) for each chosen node pair, GPU flows g -> h: senders by remaining
//      bytes (heaviest first), receivers by remaining inbound bytes, each
//      through the first NIC pair (sending NIC, receiving NIC), in preference
//      order (cluster_model.hpp), that keeps both nodes' shared resources and
//      the spine uplinks within capacity. A first pass allows only the
//      nearest NICs on both sides, a second any NIC: a hot GPU whose nearest
//      NIC is taken gets a farther one;
//  (c) the ports left idle get intra-node flows, longest remaining transfer
//      time first, where the node's shared resources still have room for
//      their solo rates (see fill_intra);
//  (d) the step lasts tau, chosen among the flows' remaining times at their
//      solo rates (and the floor min_step_latencies x latency, below which no
//      step is cut) as the one that moves the most bytes per microsecond once
//      the step's start-up latency is paid; every flow sends
//      min(remaining, rate x tau) bytes (PlanOptions' chunk rules).
// A step either finishes the flow whose remaining time is tau or lasts the
// floor; with a zero floor every step finishes at least one payload, so the
// step count is at most the number of non-zero off-diagonal demand entries.
//
// Candidates are sets: per node, 64-bit masks of its free GPUs (send and
// receive), of the GPUs that still have bytes for a given node, of the NIC
// lanes; selection is mask arithmetic in priority order.
//
// Memory: all scratch is sized once per catalog (Greedy::prepare) and reused;
// a call allocates only when its Plan needs more room than it has.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include "vpcat/planner/buffer.hpp"
#include "vpcat/planner/cluster_model.hpp"
#include "vpcat/planner/demand.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/shared_step.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v1 {
namespace detail {

inline constexpr std::uint64_t kMaxDemandBytes = std::uint64_t{1} << 63;

class Greedy {
 public:
  // Destination nodes examined per pick before the wider scan.
  static constexpr std::uint32_t kWindow = 8;
  static constexpr std::uint32_t kTight = 4;
  // Destination nodes a source node may try in vain per pass before it
  // gives up its remaining lanes for the step.
  static constexpr std::uint32_t kMaxMisses = 4;
  // GPU pairs of one node pair that may fail (no NIC pair fits) before the
  // node pair is left for the step. These bound the search; they never
  // affect correctness.
  static constexpr std::uint32_t kMaxFailedTries = 16;
  // Steps between two sorts of the source nodes by outbound bytes left.
  static constexpr std::uint32_t kResortNodes = 4;

  // Size the scratch for `m`; false when memory is short.
  bool prepare(const ClusterModel& m) noexcept {
    n_ = m.gpu_count();
    nn_ = m.node_count();
    words_ = (nn_ + 63) / 64;
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
    return R_.resize(n * n) && dmask_.resize(n * nn) && smask_.resize(nn * nn) && V_.resize(nn * nn) &&
           send_left_.resize(n) && recv_left_.resize(n) && inter_send_left_.resize(n) && inter_senders_.resize(nn) &&
           out_left_.resize(nn) && in_left_.resize(nn) && intra_left_.resize(nn) && send_order_.resize(n) &&
           recv_order_.resize(n) && node_order_.resize(nn) && node_stamp_.assign(nn, 0) &&
           send_free_.resize(nn) && recv_free_.resize(nn) && gpu_send_free_.resize(nn) && gpu_recv_free_.resize(nn) &&
           dead_stamp_.assign(nn, 0) && send_dead_.resize(nn) && recv_dead_.resize(nn) &&
           loads_.resize(m.load_count()) && spine_up_.resize(m.switches()) && spine_down_.resize(m.switches()) &&
           tried_.assign(nn, 0) && sorted_stamp_.assign(nn, 0) && vbits_.resize(nn * words_) && open_bits_.resize(words_) &&
           down_open_bits_.resize(words_) && cand_bits_.resize(words_) &&
           leaf_bits_.assign(std::size_t{m.switches() + 1} * words_, 0) && flows_.reserve(n) && times_.resize(n) &&
           touched_.reserve(nn) && fill_leaf_bits();
  }
  bool fill_leaf_bits() noexcept {
    for (std::uint32_t b = 0; b < nn_; ++b)
      if (node_switch_[b] != kNone) leaf_bits_[std::size_t{node_switch_[b]} * words_ + b / 64] |= bit(b % 64);
    return true;
  }

  // Check the demand and copy it into the remaining-bytes state.
  PlanStatus load(const ClusterModel& m, const Demand& d) noexcept {
    if (d.shape() == Demand::Shape::none)
      return PlanStatus::at(PlanError::empty_demand, "demand", "no matrix and no entries were given");
    if (d.gpus() == 0) return PlanStatus::at(PlanError::empty_demand, "demand", "0 GPUs");
    if (d.gpus() != n_)
      return PlanStatus::at(PlanError::demand_size, "demand", "%llu GPUs, the catalog has %u",
                            static_cast<unsigned long long>(d.gpus()), n_);
    const std::size_t n = n_;
    total_left_ = 0;
    switch (d.shape()) {
      case Demand::Shape::dense_u64: {
        const std::uint64_t* src = d.dense_u64();
        if (src == nullptr) return PlanStatus::at(PlanError::empty_demand, "demand", "the matrix pointer is null");
        for (std::size_t s = 0; s < n; ++s) {
          for (std::size_t t = 0; t < n; ++t) {
            const std::uint64_t v = s == t ? 0 : src[s * n + t];
            if (PlanStatus st = add_total(v, s, t); !st.ok()) return st;
            R_[s * n + t] = v;
          }
        }
        break;
      }
      case Demand::Shape::dense_f64: {
        const double* src = d.dense_f64();
        if (src == nullptr) return PlanStatus::at(PlanError::empty_demand, "demand", "the matrix pointer is null");
        for (std::size_t s = 0; s < n; ++s) {
          for (std::size_t t = 0; t < n; ++t) {
            const double x = src[s * n + t];
            if (!(x >= 0.0) || !std::isfinite(x) || x != std::floor(x)) {
              char where[64];
              std::snprintf(where, sizeof where, "demand [%zu][%zu]", s, t);
              return PlanStatus::at(PlanError::bad_demand_value, where,
                                    "%g: bytes must be a finite whole number >= 0", x);
            }
            if (s != t && !(x <= 9.2233720368547758e18)) {
              char where[64];
              std::snprintf(where, sizeof where, "demand [%zu][%zu]", s, t);
              return PlanStatus::at(PlanError::demand_overflow, where, "%g bytes, more than 2^63", x);
            }
            const std::uint64_t v = s == t ? 0 : static_cast<std::uint64_t>(x);
            if (PlanStatus st = add_total(v, s, t); !st.ok()) return st;
            R_[s * n + t] = v;
          }
        }
        break;
      }
      case Demand::Shape::sparse: {
        std::memset(R_.data(), 0, n * n * sizeof(std::uint64_t));
        const DemandEntry* e = d.entries();
        if (e == nullptr && d.entry_count() != 0)
          return PlanStatus::at(PlanError::empty_demand, "demand", "the entry pointer is null");
        for (std::size_t k = 0; k < d.entry_count(); ++k) {
          if (e[k].src >= n_ || e[k].dst >= n_) {
            char where[48];
            std::snprintf(where, sizeof where, "demand entry %zu", k);
            return PlanStatus::at(PlanError::bad_demand_entry, where, "%s %u, the catalog has %u GPUs",
                                  e[k].src >= n_ ? "src" : "dst", e[k].src >= n_ ? e[k].src : e[k].dst, n_);
          }
          if (e[k].src == e[k].dst) continue;
          if (PlanStatus st = add_total(e[k].bytes, e[k].src, e[k].dst); !st.ok()) return st;
          R_[std::size_t{e[k].src} * n + e[k].dst] += e[k].bytes;
        }
        break;
      }
      case Demand::Shape::none: break;
    }
    return summarize(m);
  }

  std::uint64_t total_bytes() const noexcept { return loaded_bytes_; }
  // A lower bound on any plan of the loaded demand, latency excluded: the
  // busiest GPU link (bytes a GPU sends or receives over its link's
  // capacity), the busiest node NIC set (inter-node bytes a node sends or
  // receives over the sum of its usable NIC lanes' capacities) and, on a
  // leaf/spine fabric, the busiest leaf uplink (bytes between its nodes and
  // other leaves' over its capacity).
  double endpoint_bound_us(const ClusterModel& m) noexcept {
    double worst = 0.0;
    auto at_least = [&](double bytes, double gbps) {
      if (gbps > 0 && bytes / (gbps * 1e3) > worst) worst = bytes / (gbps * 1e3);
    };
    for (std::uint32_t a = 0; a < nn_; ++a) {
      const NodeModel& na = m.node(a);
      const TypeModel& t = m.type(na.type);
      const double* leaf = m.leaf_caps(t);
      for (std::uint32_t g = 0; g < t.gpus; ++g) {
        at_least(static_cast<double>(send_left_[na.first_gpu + g]), leaf[g]);
        at_least(static_cast<double>(recv_left_[na.first_gpu + g]), leaf[t.gpus + g]);
      }
      double out = 0.0, in = 0.0;
      for (std::uint64_t lanes = t.usable_mask; lanes != 0; lanes &= lanes - 1) {
        const std::uint32_t k = lowest(lanes);
        out += leaf[2 * t.gpus + k];
        in += leaf[2 * t.gpus + t.nics + k];
      }
      at_least(static_cast<double>(out_left_[a]), out);
      at_least(static_cast<double>(in_left_[a]), in);
    }
    if (m.spine() && nn_ > 0 && node_switch_[0] != kNone) {  // leaf/spine: spine_up_/down_ as scratch
      for (std::uint32_t k = 0; k < m.switches(); ++k) spine_up_[k] = spine_down_[k] = 0.0;
      for (std::uint32_t a = 0; a < nn_; ++a) {
        const std::uint64_t* row = V_.data() + std::size_t{a} * nn_;
        for (std::uint32_t b = 0; b < nn_; ++b) {
          if (row[b] == 0 || node_switch_[a] == node_switch_[b]) continue;
          spine_up_[node_switch_[a]] += static_cast<double>(row[b]);
          spine_down_[node_switch_[b]] += static_cast<double>(row[b]);
        }
      }
      for (std::uint32_t k = 0; k < m.switches(); ++k) {
        at_least(spine_up_[k], m.spine_cap(k));
        at_least(spine_down_[k], m.spine_cap(k));
      }
    }
    return worst;
  }

  // The remaining demand, GPUs x GPUs row-major (the loaded demand before run()).
  const std::uint64_t* remaining() const noexcept { return R_.data(); }
  // Take the bytes of planned transfers off the remaining demand (load()ed
  // again before): what is left after a prefix of a plan. Only the matrix
  // (remaining()) is updated, not the totals and masks run() keeps: call
  // load() again before run() or endpoint_bound_us().
  void subtract(const PlanTransfer* t, std::size_t count) noexcept {
    for (std::size_t k = 0; k < count; ++k) R_[std::size_t{t[k].origin} * n_ + t[k].final] -= t[k].bytes;
  }

  // A point where the channel steps could stop and a shared step carry the
  // rest: the plan's size and estimate there, and the shared step's estimate
  // for the remaining demand.
  struct Checkpoint {
    std::size_t steps = 0, transfers = 0;
    double expected_us = 0.0, rest_us = 0.0;
  };
  // Remaining-byte fractions at which run() records a checkpoint.
  static constexpr double kCheckpoints[] = {0.5, 0.3, 0.2, 0.12, 0.07, 0.04, 0.02, 0.01};
  static constexpr std::size_t kMaxCheckpoints = sizeof(kCheckpoints) / sizeof(kCheckpoints[0]);

  // Plan the loaded demand: append steps and transfers. Gives up (gave_up,
  // ok status, the output partial) as soon as the steps' estimates add up
  // to more than give_up_us. With `rest` (the shared step may follow),
  // records up to kMaxCheckpoints checkpoints in `marks` (count in
  // `mark_count`), each leaving room for one more step under max_steps, and
  // gives up instead of failing at the step limit.
  PlanStatus run(const ClusterModel& m, const PlanOptions& o, double give_up_us, PodBuffer<PlanStep>& steps,
                 PodBuffer<PlanTransfer>& transfers, double& expected_us, bool& gave_up, SharedStep* rest,
                 Checkpoint* marks, std::size_t& mark_count) noexcept {
    mark_count = 0;
    std::size_t next_mark = 0;  // index into kCheckpoints of the next threshold
    const double floor_us = o.min_step_latencies * o.latency_us;
    init_orders(m);
    std::uint32_t step_index = 0;
    while (total_left_ > 0) {
      if (steps.size() >= o.max_steps) {
        if (rest != nullptr) {
          gave_up = true;
          return {};
        }
        return PlanStatus::at(PlanError::step_limit, "plan", "max_steps %u reached with %llu bytes left", o.max_steps,
                              static_cast<unsigned long long>(total_left_));
      }
      begin_step(m);
      if (inter_left_ > 0) {
        open_nodes(m);
        for (int pass = 0; pass < 2; ++pass) {
          begin_pass(pass == 0);
          for (std::uint32_t x = 0; x < nn_ && open_total_ > 0; ++x) {
            const std::uint32_t a = node_order_[x];
            if (out_left_[a] == 0) continue;  // the order may be a few steps old
            touch(m, a);
            next_try();
            for (std::uint32_t misses = 0; send_free_[a] != 0 && misses < kMaxMisses;) {
              if (live_senders(a) == 0) break;
              const std::uint32_t b = pick_dest(m, a, step_index);
              if (b == kNone) break;
              touch(m, b);
              if (!fill_pair(m, a, b)) ++misses;
              tried_[b] = try_stamp_;
            }
          }
        }
      }
      for (std::uint32_t a = 0; a < nn_; ++a) {
        if (intra_left_[a] == 0) continue;
        touch(m, a);
        fill_intra(m, a);
      }
      if (flows_.empty())  // cannot happen: the first candidate of a step always fits
        return PlanStatus::at(PlanError::unroutable, "plan", "no transfer fits in step %zu", steps.size());
      if (PlanStatus s = finish_step(m, o, floor_us, steps, transfers, expected_us); !s.ok()) return s;
      if (expected_us > give_up_us || projected_over(expected_us, give_up_us)) {
        gave_up = true;
        return {};
      }
      if (rest != nullptr && next_mark < kMaxCheckpoints && total_left_ > 0 && steps.size() < o.max_steps &&
          static_cast<double>(total_left_) <= kCheckpoints[next_mark] * static_cast<double>(loaded_bytes_)) {
        // Several thresholds crossed at once make one mark.
        while (next_mark < kMaxCheckpoints &&
               static_cast<double>(total_left_) <= kCheckpoints[next_mark] * static_cast<double>(loaded_bytes_))
          ++next_mark;
        marks[mark_count++] = Checkpoint{steps.size(), transfers.size(), expected_us,
                                         rest->expected_us(m, R_.data(), o.latency_us)};
      }
      ++step_index;
    }
    return {};
  }

 private:
  struct Timed {
    double t, gbps;  // remaining time at the solo rate; the rate, weighted
  };

  struct Flow {
    std::uint32_t g, h;       // global GPUs
    std::uint32_t a, b;       // their nodes
    std::uint16_t i, j;       // NICs, kNoNic for intra-node
    double gbps;              // the route's solo rate (spine included): the flow's rate in a channel step
  };

  static std::uint64_t bit(std::uint32_t k) noexcept { return std::uint64_t{1} << k; }
  // Index of the lowest set bit of x != 0.
  static std::uint32_t lowest(std::uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return static_cast<std::uint32_t>(__builtin_ctzll(x));
#else
    std::uint32_t k = 0;
    while (!(x & 1u)) x >>= 1, ++k;
    return k;
#endif
  }
  static double min2(double x, double y) noexcept { return x < y ? x : y; }

  // Once 5% of the bytes are planned, a plan whose pace (estimate per byte
  // so far) projects kGiveUpMargin over the alternative is abandoned: the
  // first steps, which carry the heaviest payloads, are its best ones.
  static constexpr double kGiveUpMargin = 1.1;
  bool projected_over(double expected_us, double give_up_us) const noexcept {
    const double done = 1.0 - static_cast<double>(total_left_) / static_cast<double>(loaded_bytes_);
    return done >= 0.05 && expected_us > give_up_us * kGiveUpMargin * done;
  }

  // ---- loading ---------------------------------------------------------------------
  PlanStatus add_total(std::uint64_t v, std::size_t s, std::size_t t) noexcept {
    if (v > kMaxDemandBytes - total_left_) {
      char where[64];
      std::snprintf(where, sizeof where, "demand [%zu][%zu]", s, t);
      if (v > kMaxDemandBytes)
        return PlanStatus::at(PlanError::demand_overflow, where, "%llu bytes, more than 2^63",
                              static_cast<unsigned long long>(v));
      return PlanStatus::at(PlanError::demand_overflow, where, "the off-diagonal total exceeds 2^63 bytes");
    }
    total_left_ += v;
    return {};
  }

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

  // ---- per-step state ----------------------------------------------------------------
  void begin_step(const ClusterModel& m) noexcept {
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
    // The kTight nodes with the most inbound bytes left, heaviest first.
    tight_count_ = 0;
    for (std::uint32_t b = 0; b < nn_; ++b) {
      if (in_left_[b] == 0) continue;
      std::uint32_t k;
      if (tight_count_ < kTight) k = tight_count_++;
      else if (in_left_[b] > in_left_[tight_[kTight - 1]]) k = kTight - 1;
      else continue;
      for (; k > 0 && in_left_[tight_[k - 1]] < in_left_[b]; --k) tight_[k] = tight_[k - 1];
      tight_[k] = b;
    }
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
  void next_try() noexcept {
    if (++try_stamp_ == 0) {
      for (std::uint32_t a = 0; a < nn_; ++a) tried_[a] = 0;
      try_stamp_ = 1;
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
  // GPUs of node a that have a nearest NIC among `lanes`.
  std::uint64_t near_gpus(std::uint32_t a, std::uint64_t lanes, bool send) const noexcept {
    const std::uint64_t* by_nic = send ? near_send_by_nic_[a] : near_recv_by_nic_[a];
    std::uint64_t out = 0;
    for (; lanes != 0; lanes &= lanes - 1) out |= by_nic[lowest(lanes)];
    return out;
  }

  // Nodes that still receive inter-node bytes and have a free receive lane,
  // as a bitset: the candidates a source node scans when its window fails.
  void open_nodes(const ClusterModel& m) noexcept {
    for (std::uint32_t w = 0; w < words_; ++w) open_bits_[w] = 0;
    open_total_ = 0;
    for (std::uint32_t b = 0; b < nn_; ++b) {
      if (in_left_[b] == 0 || m.type_of(b).usable_mask == 0) continue;
      open_bits_[b / 64] |= bit(b % 64);
      ++open_total_;
    }
  }
  void close_node(std::uint32_t b) noexcept {
    if (!(open_bits_[b / 64] >> (b % 64) & 1u)) return;
    open_bits_[b / 64] &= ~bit(b % 64);
    --open_total_;
  }

  // ---- (a) node level ------------------------------------------------------------------
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

  std::uint32_t pick_dest(const ClusterModel& m, std::uint32_t a, std::uint32_t step_index) noexcept {
    std::uint32_t best = kNone;
    std::uint64_t best_v = 0;
    const std::uint64_t* row = V_.data() + std::size_t{a} * nn_;
    const std::uint64_t* smask_row = smask_.data() + std::size_t{a} * nn_;
    const std::uint64_t senders = live_senders(a);
    const NodeModel& na = m.node(a);
    // Some live sender of a has bytes for some live receiver of b.
    auto compatible = [&](std::uint32_t b) {
      std::uint64_t s = senders & smask_row[b];
      if (s == 0) return false;
      const std::uint64_t r = live_receivers(b);
      for (; s != 0; s &= s - 1)
        if (dmask_[std::size_t{na.first_gpu + lowest(s)} * nn_ + b] & r) return true;
      return false;
    };
    // Leaf/spine: a destination on another leaf needs room on a's uplink
    // and on its leaf's downlink for the slowest flow of the pair.
    const std::uint32_t sa = node_switch_[a];
    const std::uint32_t pass = nearest_only_ ? 0 : 1;
    const double up_room = sa == kNone ? 0.0 : m.spine_cap(sa) * (1.0 + 1e-12) - spine_up_[sa];
    const bool up_open = sa != kNone && up_room >= slow_up_[2 * a + pass];
    auto blocked = [&](std::uint32_t b, std::uint32_t sb) {
      if (!up_open) return true;
      const double slowest = min2(slow_up_[2 * a + pass], slow_down_[2 * b + pass]);
      return up_room < slowest || m.spine_cap(sb) * (1.0 + 1e-12) - spine_down_[sb] < slowest;
    };
    auto consider = [&](std::uint32_t b) {
      if (row[b] <= best_v || b == a || tried_[b] == try_stamp_ || recv_free_[b] == 0) return;
      if (sa != kNone && node_switch_[b] != sa && blocked(b, node_switch_[b])) return;
      if (!compatible(b)) return;
      best = b;
      best_v = row[b];
    };
    // Candidates: open nodes a still has bytes for, that the spine lets a
    // reach (its own leaf, or leaves with downlink room when its uplink has
    // room). None: a has nothing to do in this step.
    const std::uint64_t* vrow = vbits_.data() + std::size_t{a} * words_;
    const std::uint64_t* own = sa == kNone ? nullptr : leaf_bits_.data() + std::size_t{sa} * words_;
    std::uint64_t any = 0;
    for (std::uint32_t w = 0; w < words_; ++w) {
      std::uint64_t x = vrow[w] & open_bits_[w];
      if (own) x &= up_open ? (down_open_bits_[w] | own[w]) : own[w];
      cand_bits_[w] = x;
      any |= x;
    }
    if (any == 0) return kNone;
    auto scan = [&] {
      for (std::uint32_t w = 0; w < words_; ++w)
        for (std::uint64_t x = cand_bits_[w]; x != 0; x &= x - 1) consider(w * 64 + lowest(x));
    };
    if (sa != kNone && !up_open) {  // a's uplink is full: its own leaf only
      scan();
      return best;
    }
    // A window that rotates with the step (uniform demand becomes shifted
    // node permutations), then the nodes with the most inbound bytes left.
    const std::uint32_t window = nn_ - 1 < kWindow ? nn_ - 1 : kWindow;
    std::uint32_t b = a + 1 + step_index % nn_;
    if (b >= nn_) b -= nn_;
    if (b >= nn_) b -= nn_;
    for (std::uint32_t w = 0; w < window; ++w) {
      consider(b);
      if (++b == nn_) b = 0;
    }
    for (std::uint32_t k = 0; k < tight_count_; ++k) consider(tight_[k]);
    if (best == kNone) scan();
    return best;
  }

  // ---- (b) GPU flows of a node pair --------------------------------------------------------
  // Receivers of node b that may take a flow in this pass.
  std::uint64_t live_receivers(std::uint32_t b) noexcept {
    std::uint64_t live = gpu_recv_free_[b] & ~recv_dead(b);
    if (nearest_only_) live &= near_gpus(b, recv_free_[b], false);
    return live;
  }

  // Add flows from node a to node b while both have lanes. True when at
  // least one flow was added.
  bool fill_pair(const ClusterModel& m, std::uint32_t a, std::uint32_t b) noexcept {
    const NodeModel &na = m.node(a), &nb = m.node(b);
    const std::size_t nn = nn_;
    double room = pair_spine_room(m, a, b);
    const double slowest = slowest_flow(a, b);
    std::uint64_t senders = live_senders(a) & smask_[std::size_t{a} * nn + b];
    std::uint64_t receivers = live_receivers(b);
    bool added = false;
    std::uint32_t failed = 0;
    for (std::uint32_t si = 0; si < na.gpus && senders != 0 && receivers != 0; ++si) {
      if (room < slowest || failed >= kMaxFailedTries) break;
      const std::uint32_t lg = send_order_[na.first_gpu + si];
      if (!(senders >> lg & 1u)) continue;
      const std::uint32_t g = na.first_gpu + lg;
      const std::uint64_t cand = dmask_[std::size_t{g} * nn + b] & receivers;
      if (cand == 0) continue;
      for (std::uint32_t ri = 0; ri < nb.gpus; ++ri) {
        const std::uint32_t lh = recv_order_[nb.first_gpu + ri];
        if (!(cand >> lh & 1u)) continue;
        const Try t = try_inter(m, a, g, b, nb.first_gpu + lh, room);
        if (t == Try::ok) {
          added = true;
          room = pair_spine_room(m, a, b);
          senders = live_senders(a) & smask_[std::size_t{a} * nn + b];
          receivers = live_receivers(b);
          break;
        }
        if (t == Try::sender_dead) {
          send_dead(a) |= bit(lg);
          senders &= ~bit(lg);
          break;
        }
        if (t == Try::receiver_dead) {
          recv_dead(b) |= bit(lh);
          receivers &= ~bit(lh);
        } else if (++failed >= kMaxFailedTries) {
          break;
        }
      }
    }
    return added;
  }

  // Room left on a route's shared resources: the largest rate it still takes.
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

  enum class Try : std::uint8_t { ok, no, sender_dead, receiver_dead };

  // The first NIC pair, in preference order, that carries g -> h now.
  // Cheap tests (lanes, rates, spine) come before the resource headrooms,
  // which are computed at most once per NIC. An endpoint is reported dead
  // when every allowed free NIC on its side was measured without room for
  // the slowest flow any pair can have (m.min_inter_gbps()).
  Try try_inter(const ClusterModel& m, std::uint32_t a, std::uint32_t g, std::uint32_t b, std::uint32_t h,
                double pair_room) noexcept {
    const NodeModel &na = m.node(a), &nb = m.node(b);
    const TypeModel &ta = m.type(na.type), &tb = m.type(nb.type);
    const std::uint32_t lg = g - na.first_gpu, lh = h - nb.first_gpu;
    const NicPref* sp = m.send_prefs(ta, lg);
    const NicPref* rp = m.recv_prefs(tb, lh);
    const double slowest_pair = slowest_flow(a, b);
    const double slowest_any = m.min_inter_gbps();
    constexpr double kUnknown = -2.0, kClosed = -1.0;
    double down_room[kMaxNicsPerNode];
    bool any_open = false;
    for (std::uint32_t y = 0; y < tb.usable; ++y) {
      const bool open = (!nearest_only_ || rp[y].nearest) && (recv_free_[b] >> rp[y].nic & 1u);
      down_room[y] = open ? kUnknown : kClosed;
      any_open = any_open || open;
    }
    if (!any_open) return Try::receiver_dead;
    bool sender_dead = true;
    for (std::uint32_t x = 0; x < ta.usable; ++x) {
      const std::uint32_t i = sp[x].nic;
      if ((nearest_only_ && !sp[x].nearest) || !(send_free_[a] >> i & 1u)) continue;
      const RouteEntry& up = m.gn(ta, lg, i);
      double up_room = kUnknown;
      for (std::uint32_t y = 0; y < tb.usable; ++y) {
        if (down_room[y] == kClosed) continue;
        const std::uint32_t j = rp[y].nic;
        const RouteEntry& down = m.ng(tb, j, lh);
        double rate = min2(up.gbps, down.gbps);
        const std::uint32_t si = m.switch_of(a, i), sj = m.switch_of(b, j);
        const bool crossing = m.spine() && si != sj;
        if (crossing) {
          rate = min2(rate, min2(m.spine_cap(si), m.spine_cap(sj)));
          if (rate > pair_room || spine_up_[si] + rate > m.spine_cap(si) * (1.0 + 1e-12) ||
              spine_down_[sj] + rate > m.spine_cap(sj) * (1.0 + 1e-12))
            continue;
        }
        if (up_room == kUnknown) {
          up_room = headroom(m, a, up);
          if (up_room < slowest_pair) break;  // no flow through NIC i fits now
        }
        if (down_room[y] == kUnknown) down_room[y] = headroom(m, b, down);
        if (rate > up_room || rate > down_room[y]) continue;
        add_load(m, a, up, rate);
        add_load(m, b, down, rate);
        if (crossing) {
          spine_up_[si] += rate;
          spine_down_[sj] += rate;
          // A leaf whose downlink cannot take the slowest flow any more is
          // no destination for other leaves in this step.
          if (node_switch_[b] == sj && m.spine_cap(sj) * (1.0 + 1e-12) - spine_down_[sj] < m.min_inter_gbps())
            for (std::uint32_t w = 0; w < words_; ++w) down_open_bits_[w] &= ~leaf_bits_[std::size_t{sj} * words_ + w];
        }
        send_free_[a] &= ~bit(i);
        recv_free_[b] &= ~bit(j);
        if (recv_free_[b] == 0) close_node(b);
        gpu_send_free_[a] &= ~bit(lg);
        gpu_recv_free_[b] &= ~bit(lh);
        flows_.push_back(Flow{g, h, a, b, static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(j), rate});
        return Try::ok;
      }
      if (up_room == kUnknown || up_room >= slowest_any) sender_dead = false;
    }
    if (sender_dead) return Try::sender_dead;
    for (std::uint32_t y = 0; y < tb.usable; ++y)
      if (down_room[y] == kUnknown || down_room[y] >= slowest_any) return Try::no;
    return Try::receiver_dead;
  }

  // ---- (c) intra-node fill ---------------------------------------------------------------------
  // Intra-node flows fill the ports the network left idle, each where every
  // shared resource of its route still has room for its solo rate: the step
  // stays a channel (DESIGN.md section 3), every transfer at its solo rate.
  // Weight of an intra-node flow's bytes in the choice of a step's length
  // when the step also has inter-node flows: the network lanes are the
  // scarce resource, so intra-node flows fill the step rather than cut it.
  static constexpr double kIntraWeight = 0.3;

  void fill_intra(const ClusterModel& m, std::uint32_t a) noexcept {
    const NodeModel& na = m.node(a);
    const TypeModel& t = m.type(na.type);
    const std::size_t n = n_, nn = nn_;
    std::uint64_t senders = gpu_send_free_[a] & smask_[std::size_t{a} * nn + a];
    for (std::uint32_t si = 0; si < na.gpus && senders != 0 && gpu_recv_free_[a] != 0; ++si) {
      const std::uint32_t lg = send_order_[na.first_gpu + si];
      if (!(senders >> lg & 1u)) continue;
      const std::uint32_t g = na.first_gpu + lg;
      std::uint64_t cand = dmask_[std::size_t{g} * nn + a] & gpu_recv_free_[a];
      const std::uint64_t* row = R_.data() + g * n;
      std::uint32_t best = kNone;
      double best_time = -1.0;
      for (; cand != 0; cand &= cand - 1) {
        const std::uint32_t lh = lowest(cand);
        const RouteEntry& r = m.gg(t, lg, lh);
        const double time = static_cast<double>(row[na.first_gpu + lh]) / r.gbps;
        if (time <= best_time) continue;
        if (r.gbps <= headroom(m, a, r)) best = lh, best_time = time;
      }
      if (best == kNone) continue;
      const RouteEntry& r = m.gg(t, lg, best);
      add_load(m, a, r, r.gbps);
      gpu_send_free_[a] &= ~bit(lg);
      gpu_recv_free_[a] &= ~bit(best);
      flows_.push_back(Flow{g, na.first_gpu + best, a, a, kNoNic, kNoNic, r.gbps});
    }
  }

  // ---- (d) step length, pieces, bookkeeping ---------------------------------------------------------
  static std::uint64_t piece(std::uint64_t rem, double cap_bytes, const PlanOptions& o) noexcept {
    if (static_cast<double>(rem) <= cap_bytes + 0.5) return rem;
    std::uint64_t c = static_cast<std::uint64_t>(cap_bytes);  // cap_bytes < rem < 2^63 here
    if (o.chunk_align_bytes > 1) c -= c % o.chunk_align_bytes;
    if (c < o.min_chunk_bytes) c = o.min_chunk_bytes;
    if (c == 0) c = o.chunk_align_bytes;
    if (c >= rem || rem - c < o.min_chunk_bytes) return rem;
    return c;
  }

  // The step length: among the flows' remaining times (and the floor), the
  // one that moves the most weighted bytes per microsecond once the step's
  // start-up latency is paid: bytes(tau) / (tau + latency), bytes(tau) =
  // sum of w_i rate_i min(t_i, tau). Every candidate but the floor finishes
  // a flow.
  double step_length(double latency_us, double floor_us) noexcept {
    const std::size_t count = flows_.size();
    const std::size_t n = n_;
    // Each flow's bytes count with the square of the load left on its busier
    // endpoint (relative to the busiest): the step suits the GPUs that bound
    // the plan, and short flows of nearly idle GPUs do not cut it short.
    double top = 1.0;
    bool any_inter = false;
    for (std::size_t k = 0; k < count; ++k) any_inter = any_inter || flows_[k].a != flows_[k].b;
    for (std::size_t k = 0; k < count; ++k) {
      const Flow& f = flows_[k];
      const double load = static_cast<double>(send_left_[f.g] > recv_left_[f.h] ? send_left_[f.g] : recv_left_[f.h]);
      if (load > top) top = load;
    }
    for (std::size_t k = 0; k < count; ++k) {
      const Flow& f = flows_[k];
      const double load =
          static_cast<double>(send_left_[f.g] > recv_left_[f.h] ? send_left_[f.g] : recv_left_[f.h]) / top;
      const double w = (f.a == f.b && any_inter) ? kIntraWeight : 1.0;
      times_[k] = Timed{static_cast<double>(R_[f.g * n + f.h]) / (f.gbps * 1e3), f.gbps * load * load * w};
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
    if (floor_us > times_[0].t && floor_us < times_[count - 1].t) {
      // The floor as a candidate: the flows shorter than it finish.
      double d = 0.0, r = rate_after;
      for (std::size_t k = 0; k < count && times_[k].t < floor_us; ++k) d += times_[k].gbps * times_[k].t, r -= times_[k].gbps;
      const double eff = (d + r * floor_us) / (floor_us + latency_us);
      best = eff, best_tau = floor_us;
    }
    for (std::size_t k = 0; k < count; ++k) {
      consider(times_[k].t);
      done += times_[k].gbps * times_[k].t;
      rate_after -= times_[k].gbps;
    }
    return best_tau;
  }

  PlanStatus finish_step(const ClusterModel& m, const PlanOptions& o, double floor_us, PodBuffer<PlanStep>& steps,
                         PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    const std::size_t n = n_, nn = nn_;
    const double tau = step_length(o.latency_us, floor_us);
    if (!transfers.reserve(transfers.size() + flows_.size()) || !steps.reserve(steps.size() + 1))
      return PlanStatus::at(PlanError::out_of_memory, "plan", "growing the plan to %zu transfers",
                            transfers.size() + flows_.size());
    PlanStep step;
    step.first = transfers.size();
    step.count = static_cast<std::uint32_t>(flows_.size());
    double longest = 0.0;
    for (const Flow& f : flows_) {
      std::uint64_t& rem = R_[f.g * n + f.h];
      const std::uint64_t c = piece(rem, f.gbps * 1e3 * tau, o);
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
      const double t = static_cast<double>(c) / (f.gbps * 1e3);
      if (t > longest) longest = t;
      PlanTransfer x;
      x.src = x.origin = f.g;
      x.dst = x.final = f.h;
      x.bytes = c;
      x.solo_gbps = f.gbps;
      x.src_nic = f.i;
      x.dst_nic = f.j;
      transfers.push_back(x);
    }
    step.expected_us = o.latency_us + longest;
    expected_us += step.expected_us;
    steps.push_back(step);
    // Priorities: the GPUs of the nodes that moved bytes; the source nodes
    // every few steps (a nearly sorted order is as good a heuristic, and a
    // full pass per step would cost O(nodes x displacement)).
    for (const Flow& f : flows_) {
      if (sorted_stamp_[f.a] != stamp_) sorted_stamp_[f.a] = stamp_, sort_node_gpus(m, f.a);
      if (sorted_stamp_[f.b] != stamp_) sorted_stamp_[f.b] = stamp_, sort_node_gpus(m, f.b);
    }
    if (++since_sorted_ >= kResortNodes) {
      sort_desc(node_order_.data(), nn_, out_left_.data());
      since_sorted_ = 0;
    }
    return {};
  }

  std::uint32_t n_ = 0, nn_ = 0;
  PodBuffer<std::uint64_t> R_;            // remaining bytes, GPUs x GPUs
  PodBuffer<std::uint64_t> dmask_;        // [g][b]: bit h when g has bytes for GPU h of node b
  PodBuffer<std::uint64_t> smask_;        // [a][b]: bit g when GPU g of a has bytes for node b
  PodBuffer<std::uint64_t> V_;            // remaining inter-node bytes, nodes x nodes
  PodBuffer<std::uint64_t> send_left_, recv_left_, inter_send_left_;  // per GPU
  PodBuffer<std::uint64_t> inter_senders_;                            // per node: GPUs with inter-node bytes
  PodBuffer<std::uint64_t> out_left_, in_left_, intra_left_;          // per node
  PodBuffer<std::uint32_t> send_order_, recv_order_;  // per node segment: local GPU indexes by priority
  PodBuffer<std::uint32_t> node_order_;               // nodes by outbound bytes left
  std::uint32_t tight_[kTight] = {};                   // nodes with the most inbound bytes left
  std::uint32_t tight_count_ = 0;
  PodBuffer<std::uint32_t> node_switch_;               // per node: its NICs' switch (leaf_spine), else kNone
  PodBuffer<std::uint64_t> usable_, all_gpus_;         // per node: usable NICs, all its GPUs
  PodBuffer<double> slow_up_, slow_down_;              // per node and pass: slowest flow out / in
  PodBuffer<const std::uint64_t*> near_send_by_nic_, near_recv_by_nic_;  // per node: per NIC, the GPUs it is nearest to
  PodBuffer<std::uint32_t> node_stamp_, dead_stamp_, tried_, sorted_stamp_;
  std::uint32_t since_sorted_ = 0;
  PodBuffer<std::uint64_t> send_free_, recv_free_;          // per node: free NIC lanes
  PodBuffer<std::uint64_t> gpu_send_free_, gpu_recv_free_;  // per node: GPUs not yet sending / receiving
  PodBuffer<std::uint64_t> send_dead_, recv_dead_;          // per node: GPUs out for the pass
  PodBuffer<double> loads_, spine_up_, spine_down_;  // loads_: per node resource, the solo rates of the step's flows
  std::uint32_t words_ = 0;                        // 64-bit words of a node bitset
  PodBuffer<std::uint64_t> vbits_;                 // [a]: bit b when V[a][b] > 0
  PodBuffer<std::uint64_t> open_bits_;             // nodes with a free receive lane and inbound bytes
  PodBuffer<std::uint64_t> down_open_bits_;        // nodes whose leaf downlink still has room (leaf_spine)
  PodBuffer<std::uint64_t> cand_bits_;             // pick_dest's candidates
  PodBuffer<std::uint64_t> leaf_bits_;             // [k]: the nodes of leaf k (leaf_spine)
  std::uint32_t open_total_ = 0;
  PodBuffer<Flow> flows_;
  PodBuffer<Timed> times_;
  PodBuffer<std::uint32_t> touched_;
  bool nearest_only_ = true;
  std::uint32_t stamp_ = 0, try_stamp_ = 0, pass_stamp_ = 0;
  std::uint64_t total_left_ = 0, inter_left_ = 0, loaded_bytes_ = 0;
};

}  // namespace detail
}  // namespace v1
}  // namespace vpcat
