// The GPU level of one step (greedy.hpp, docs/planner.md "One step" 2-3):
// the local mapping of a node pair's traffic onto GPUs and NICs, and the
// intra-node flows that fill the ports the network leaves idle. Every flow
// is added at its route's solo rate and only where every resource it
// crosses (both nodes' shared PCIe resources, NIC lanes, spine uplinks)
// keeps room for it: the step stays a channel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/node_matching.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class LocalMapping : public NodeMatching {
 public:
  // GPU pairs of one node pair that may fail (no NIC pair fits) before the
  // node pair is left for the step. This bounds the search; it never
  // affects correctness.
  static constexpr std::uint32_t kMaxFailedTries = 16;

 protected:
  enum class Try : std::uint8_t { ok, no, sender_dead, receiver_dead };

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

  // Receivers in g's node a that g still has bytes for, free in this step,
  // whose peer-to-peer route from g loads a tracked resource.
  std::uint64_t far_receivers(const ClusterModel& m, std::uint32_t a, std::uint32_t g) const noexcept {
    const NodeModel& na = m.node(a);
    const TypeModel& t = m.type(na.type);
    const std::uint32_t lg = g - na.first_gpu;
    std::uint64_t out = 0;
    for (std::uint64_t c = dmask_[std::size_t{g} * nn_ + a] & gpu_recv_free_[a]; c != 0; c &= c - 1)
      if (m.gg(t, lg, lowest(c)).shared_count > 0) out |= bit(lowest(c));
    return out;
  }
  // A NIC loopback g -> NIC i -> switch -> NIC j -> h inside node a, to the
  // receiver among `cand` with the most bytes left from g: through the
  // first free send lane i and receive lane j != i, in g's and h's NIC
  // preference order, on one switch, where every shared resource of the
  // two halves keeps room for its solo rate (once per half that crosses
  // it) and, with `as_fast`, that rate is at least the peer-to-peer
  // route's. False when none fits.
  bool try_loopback(const ClusterModel& m, std::uint32_t a, std::uint32_t g, std::uint64_t cand,
                    bool as_fast) noexcept {
    const NodeModel& na = m.node(a);
    const TypeModel& t = m.type(na.type);
    if (!m.has_fabric() || send_free_[a] == 0 || recv_free_[a] == 0) return false;
    const std::uint32_t lg = g - na.first_gpu;
    const std::uint64_t* row = R_.data() + std::size_t{g} * n_;
    const NicPref* sp = m.send_prefs(t, lg);
    while (cand != 0) {
      std::uint32_t lh = lowest(cand);
      for (std::uint64_t c = cand; c != 0; c &= c - 1)
        if (row[na.first_gpu + lowest(c)] > row[na.first_gpu + lh]) lh = lowest(c);
      cand &= ~bit(lh);
      const NicPref* rp = m.recv_prefs(t, lh);
      for (std::uint32_t x = 0; x < t.usable; ++x) {
        const std::uint32_t i = sp[x].nic;
        if (!(send_free_[a] >> i & 1u)) continue;
        const RouteEntry& up = m.gn(t, lg, i);
        for (std::uint32_t y = 0; y < t.usable; ++y) {
          const std::uint32_t j = rp[y].nic;
          if (!(recv_free_[a] >> j & 1u) || !m.can_loop(a, i, j)) continue;
          const RouteEntry& down = m.ng(t, j, lh);
          const double rate = min2(up.gbps, down.gbps);
          if (as_fast && rate < m.gg(t, lg, lh).gbps) continue;
          if (!halves_fit(m, a, up, down, rate)) continue;
          add_load(m, a, up, rate);
          add_load(m, a, down, rate);
          send_free_[a] &= ~bit(i);  // the intra fill runs after the node level: no node to close
          recv_free_[a] &= ~bit(j);
          gpu_send_free_[a] &= ~bit(lg);
          gpu_recv_free_[a] &= ~bit(lh);
          flows_.push_back(Flow{g, na.first_gpu + lh, a, a, static_cast<std::uint16_t>(i),
                                static_cast<std::uint16_t>(j), rate});
          return true;
        }
      }
    }
    return false;
  }
  // Both halves of a loopback in node a at `rate`: every shared resource of
  // either keeps room for the rate once per half that lists it (add_load
  // charges each listing; a verified route lists a resource at most once,
  // SPEC §6.5, but the two halves may both cross it).
  bool halves_fit(const ClusterModel& m, std::uint32_t a, const RouteEntry& up, const RouteEntry& down,
                  double rate) const noexcept {
    const double* load = loads_.data() + m.node(a).load_first;
    const double* cap = m.caps(m.type_of(a));
    const std::uint32_t *u = m.shared_ids(up), *d = m.shared_ids(down);
    auto listed = [](const std::uint32_t* ids, std::uint32_t count, std::uint32_t id) {
      std::uint32_t n = 0;
      for (std::uint32_t k = 0; k < count; ++k) n += ids[k] == id;
      return n;
    };
    auto fits = [&](std::uint32_t id) {
      const double need = rate * (listed(u, up.shared_count, id) + listed(d, down.shared_count, id));
      return cap[id] * (1.0 + 1e-12) - load[id] >= need;
    };
    for (std::uint32_t k = 0; k < up.shared_count; ++k)
      if (!fits(u[k])) return false;
    for (std::uint32_t k = 0; k < down.shared_count; ++k)
      if (!fits(d[k])) return false;
    return true;
  }

  // Intra-node flows fill the ports the network left idle, each where every
  // shared resource of its route still has room for its solo rate: the
  // peer-to-peer route, or with `loopback` a NIC loopback on lanes the step
  // leaves idle, first where it is as fast as the peer-to-peer route and
  // spares the tracked resources that route loads, else where no
  // peer-to-peer route of the sender fits.
  void fill_intra(const ClusterModel& m, std::uint32_t a, bool loopback) noexcept {
    const NodeModel& na = m.node(a);
    const TypeModel& t = m.type(na.type);
    const std::size_t n = n_, nn = nn_;
    std::uint64_t senders = gpu_send_free_[a] & smask_[std::size_t{a} * nn + a];
    for (std::uint32_t si = 0; si < na.gpus && senders != 0 && gpu_recv_free_[a] != 0; ++si) {
      const std::uint32_t lg = send_order_[na.first_gpu + si];
      if (!(senders >> lg & 1u)) continue;
      const std::uint32_t g = na.first_gpu + lg;
      // With loopback: receivers whose peer-to-peer route loads a tracked
      // resource (a switch uplink, a root complex, the socket link) try a
      // loopback at least as fast first, which spares those resources for
      // the pairs that have no other way.
      if (loopback && try_loopback(m, a, g, far_receivers(m, a, g), true)) continue;
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
      if (best == kNone) {
        if (loopback) try_loopback(m, a, g, dmask_[std::size_t{g} * nn + a] & gpu_recv_free_[a], false);
        continue;
      }
      const RouteEntry& r = m.gg(t, lg, best);
      add_load(m, a, r, r.gbps);
      gpu_send_free_[a] &= ~bit(lg);
      gpu_recv_free_[a] &= ~bit(best);
      flows_.push_back(Flow{g, na.first_gpu + best, a, a, kNoNic, kNoNic, r.gbps});
    }
  }
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
