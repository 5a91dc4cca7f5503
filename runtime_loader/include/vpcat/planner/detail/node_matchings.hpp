// The fabric's matching templates (replay.hpp): node-level matchings that
// together pair every node with every other once, each one a set of node
// pairs (a sends to b) in which a node sends to one node and receives from
// one, and the spine keeps room: on a leaf/spine fabric, the pairs that cross
// from leaf x to leaf y load x's uplink and y's downlink by `node_gbps` each
// (the most one node's flows of one replay round carry), within capacity.
// On one switch and on rails (where the replay keeps NIC k to NIC k, so no
// flow crosses the spine) every node shift is one full matching.
//
// Built once (by the planner's init, with the replay cycle) by first fit: the node shifts
// in order of how many of their pairs cross the spine, most first, each
// pair into the first matching with its sender, its receiver and the
// spine's room free. Pairs that stay inside a leaf so fill the matchings the
// spine leaves half empty.
//
// Memory: 8 bytes per node pair; nodes beyond kMaxNodes get no templates
// (the search plans their steps).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/flow.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class NodeMatchings {
 public:
  static constexpr std::uint32_t kMaxNodes = 1024;

  struct Pair {
    std::uint32_t a, b;
  };

  // False when memory is short; count() is 0 when the fabric gets none.
  bool build(const ClusterModel& m, bool spine, double node_gbps) noexcept {
    first_.clear();
    pairs_.clear();
    const std::uint32_t N = m.node_count();
    if (N < 2 || N > kMaxNodes) return true;
    const std::uint32_t S = spine ? m.switches() : 0;
    if (spine)
      for (std::uint32_t k = 0; k < S; ++k)
        if (node_gbps > m.spine_cap(k) * (1.0 + 1e-12)) return true;  // one node alone overloads a leaf
    const bool packed = spine;  // without a spine every shift is a matching as it is
    // Shifts by the pairs they send across the spine, most first.
    PodBuffer<std::uint32_t> shifts, crossing;
    if (!shifts.resize(N - 1) || !crossing.assign(N, 0)) return false;
    for (std::uint32_t s = 1; s < N; ++s) {
      shifts[s - 1] = s;
      if (packed)
        for (std::uint32_t a = 0; a < N; ++a) crossing[s] += m.node_switch(a) != m.node_switch((a + s) % N);
    }
    std::stable_sort(shifts.data(), shifts.data() + (N - 1),
                     [&](std::uint32_t x, std::uint32_t y) { return crossing[x] > crossing[y]; });
    if (!pairs_.reserve(std::size_t{N} * (N - 1))) return false;
    if (!packed) {
      for (std::uint32_t x = 0; x < N - 1; ++x) {
        if (!first_.push_back(static_cast<std::uint32_t>(pairs_.size()))) return false;
        for (std::uint32_t a = 0; a < N; ++a) pairs_.push_back(Pair{a, (a + shifts[x]) % N});
      }
      return first_.push_back(static_cast<std::uint32_t>(pairs_.size()));
    }
    // First fit. Per matching: senders and receivers used (N bits each), and
    // the spine's load per leaf, up and down.
    const std::size_t words = (N + 63) / 64;
    PodBuffer<std::uint64_t> sends, recvs;
    PodBuffer<double> up, down;
    PodBuffer<std::uint32_t> sizes;
    PodBuffer<std::uint32_t> where;
    if (!where.resize(std::size_t{N} * (N - 1))) return false;
    std::uint32_t count = 0;
    auto open = [&]() -> bool {
      if (!sends.append(words, 0) || !recvs.append(words, 0) || !up.append(S, 0.0) || !down.append(S, 0.0) ||
          !sizes.push_back(0))
        return false;
      ++count;
      return true;
    };
    // Per matching j, what closes it to a pair a -> b (from leaf la to lb):
    auto sends_in = [&](std::uint32_t j, std::uint32_t a) { return (sends[j * words + a / 64] >> (a % 64) & 1u) != 0; };
    auto receives_in = [&](std::uint32_t j, std::uint32_t b) {
      return (recvs[j * words + b / 64] >> (b % 64) & 1u) != 0;
    };
    auto up_full = [&](std::uint32_t j, std::uint32_t la) {
      return up[std::size_t{j} * S + la] + node_gbps > m.spine_cap(la) * (1.0 + 1e-12);
    };
    auto down_full = [&](std::uint32_t j, std::uint32_t lb) {
      return down[std::size_t{j} * S + lb] + node_gbps > m.spine_cap(lb) * (1.0 + 1e-12);
    };
    // Where first fit can start for a pair: the matchings before these are
    // closed to it for good (a node's send or receive slot, a leaf's uplink
    // or downlink, only fill up), so skipping them picks the same matching
    // in far fewer probes (N^2 pairs x matchings otherwise: 126M probes
    // at 512 nodes).
    PodBuffer<std::uint32_t> send_from, recv_from, up_from, down_from;
    if (!send_from.assign(N, 0) || !recv_from.assign(N, 0) || !up_from.assign(S, 0) || !down_from.assign(S, 0))
      return false;
    std::size_t p = 0;
    for (std::uint32_t x = 0; x < N - 1; ++x) {
      const std::uint32_t s = shifts[x];
      for (std::uint32_t a = 0; a < N; ++a, ++p) {
        const std::uint32_t b = (a + s) % N;
        const std::uint32_t la = m.node_switch(a), lb = m.node_switch(b);
        const bool cross = la != lb;
        std::uint32_t j = send_from[a] > recv_from[b] ? send_from[a] : recv_from[b];
        if (cross && up_from[la] > j) j = up_from[la];
        if (cross && down_from[lb] > j) j = down_from[lb];
        for (;; ++j) {
          if (j == count && !open()) return false;
          if (sends_in(j, a) || receives_in(j, b) || (cross && (up_full(j, la) || down_full(j, lb)))) continue;
          break;
        }
        sends[j * words + a / 64] |= bit(a % 64);
        recvs[j * words + b / 64] |= bit(b % 64);
        if (cross) up[std::size_t{j} * S + la] += node_gbps, down[std::size_t{j} * S + lb] += node_gbps;
        where[p] = j;
        ++sizes[j];
        while (send_from[a] < count && sends_in(send_from[a], a)) ++send_from[a];
        while (recv_from[b] < count && receives_in(recv_from[b], b)) ++recv_from[b];
        if (cross) {
          while (up_from[la] < count && up_full(up_from[la], la)) ++up_from[la];
          while (down_from[lb] < count && down_full(down_from[lb], lb)) ++down_from[lb];
        }
      }
    }
    // Lay the pairs out matching by matching.
    if (!first_.resize(count + 1)) return false;
    std::uint32_t at = 0;
    for (std::uint32_t j = 0; j < count; ++j) first_[j] = at, at += sizes[j];
    first_[count] = at;
    if (!pairs_.resize(at)) return false;
    PodBuffer<std::uint32_t> fill;
    if (!fill.assign(count, 0)) return false;
    p = 0;
    for (std::uint32_t x = 0; x < N - 1; ++x)
      for (std::uint32_t a = 0; a < N; ++a, ++p) {
        const std::uint32_t j = where[p];
        pairs_[first_[j] + fill[j]++] = Pair{a, (a + shifts[x]) % N};
      }
    return true;
  }

  std::uint32_t count() const noexcept { return first_.empty() ? 0 : static_cast<std::uint32_t>(first_.size() - 1); }
  const Pair* pairs(std::uint32_t j) const noexcept { return pairs_.data() + first_[j]; }
  std::uint32_t size(std::uint32_t j) const noexcept { return first_[j + 1] - first_[j]; }

 private:
  PodBuffer<std::uint32_t> first_;  // matching j: pairs_[first_[j], first_[j + 1])
  PodBuffer<Pair> pairs_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
