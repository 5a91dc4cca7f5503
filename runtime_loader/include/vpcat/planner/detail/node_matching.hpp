// The node level of one step (greedy.hpp, docs/planner.md "One step" 1):
// which destination node a source node sends to next. Candidates are
// bitsets: nodes with inbound bytes and a free receive lane, that the spine
// lets the source reach; a window that rotates with the step (uniform
// demand becomes shifted node permutations) and the nodes with the most
// inbound bytes left come first, heaviest node-to-node volume wins.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/step_resources.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class NodeMatching : public StepResources {
 public:
  // Destination nodes examined per pick before the wider scan.
  static constexpr std::uint32_t kWindow = 8;
  static constexpr std::uint32_t kTight = 4;

  // Size the state (after prepare_resources); false when memory is short.
  bool prepare_matching() noexcept {
    return tried_.assign(nn_, 0) && open_bits_.resize(words_) && cand_bits_.resize(words_);
  }

 protected:
  // A new step: the kTight nodes with the most inbound bytes left,
  // heaviest first.
  void begin_matching() noexcept {
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
  void next_try() noexcept {
    if (++try_stamp_ == 0) {
      for (std::uint32_t a = 0; a < nn_; ++a) tried_[a] = 0;
      try_stamp_ = 1;
    }
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

  std::uint32_t tight_[kTight] = {};  // nodes with the most inbound bytes left
  std::uint32_t tight_count_ = 0;
  PodBuffer<std::uint32_t> tried_;    // per node: try_stamp_ when tried in vain by the current source
  std::uint32_t try_stamp_ = 0;
  PodBuffer<std::uint64_t> open_bits_;  // nodes with a free receive lane and inbound bytes
  PodBuffer<std::uint64_t> cand_bits_;  // pick_dest's candidates
  std::uint32_t open_total_ = 0;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
