// The catalog's local patterns as the planner replays them (replay.hpp):
// per node type, every image of every stored orbit representative under the
// type's automorphism group, each a maximal contention-free local pattern
// (docs/design.md §3), expanded by a breadth-first walk of each orbit under
// the stored generators. Planner::init copies the representatives and the
// generators (stored_patterns.hpp: the catalog may go away); the first
// balanced demand the replay plans expands them, for its one node type
// (PatternTable). Plan time only reads the table: a
// step's node part is a subset of one of these images, found by index, never
// searched.
//
// The catalog is untrusted input: an image is kept only if the planner's own
// model (cluster_model.hpp) agrees that it is a channel: its flows at their
// routes' solo rates fit every tracked resource, each GPU sends and
// receives at most once (one-port) and each NIC carries at most one flow per
// direction through a usable port (the fabric rule).
//
// A type's maximal patterns can number millions (5.2 million on Azure's
// ND A100 v4): the table holds at most kMaxImages images per type, the
// orbits of the representatives that use the most roles first (network
// roles first in a cluster, peer-to-peer roles on a single node), the last
// orbit possibly in part. Every image is still a stored channel; a table
// cut short just offers the replay fewer of them.
//
// Roles, per local GPU g, as in the catalog (format.hpp) but compact:
// kNoRole, a local GPU index (peer-to-peer), or gpus + k (NIC k).
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/catalog_view.hpp"
#include "vpcat/format.hpp"
#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/stored_patterns.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class PatternTable {
 public:
  static constexpr std::int16_t kNoRole = -1;
  // Images of one node type at most (the table's memory: 4 x gpus bytes each).
  static constexpr std::uint32_t kMaxImages = 1u << 15;

  struct TypeImages {
    std::size_t first = 0;    // where its roles start in the table (2 x gpus per image)
    std::uint32_t count = 0;  // images
    std::uint32_t gpus = 0, nics = 0;
  };

  // Expand the stored patterns of node type `type`, as `m` (built from the
  // same catalog) sees them; the other types stay empty. False only when
  // memory is short.
  bool build(const StoredPatterns& sp, const ClusterModel& m, std::uint32_t type) noexcept {
    types_.clear();
    roles_.clear();
    if (!types_.resize(sp.type_count())) return false;
    return type >= sp.type_count() || build_type(sp, sp.type(type), m, m.type(type), types_[type]);
  }

  const TypeImages& type(std::uint32_t t) const noexcept { return types_[t]; }
  // Send and receive roles of image i of a type with `gpus` GPUs.
  const std::int16_t* send(const TypeImages& t, std::uint32_t i) const noexcept {
    return roles_.data() + t.first + std::size_t{i} * 2 * t.gpus;
  }
  const std::int16_t* recv(const TypeImages& t, std::uint32_t i) const noexcept { return send(t, i) + t.gpus; }

 private:
  bool build_type(const StoredPatterns& sp, const StoredPatterns::Type& st, const ClusterModel& m,
                  const TypeModel& tm, TypeImages& out) noexcept {
    out = TypeImages();
    out.first = roles_.size();
    out.gpus = tm.gpus;
    out.nics = tm.nics;
    const std::uint32_t G = tm.gpus, K = tm.nics, width = 2 * G, P = st.generators;
    if (G == 0 || st.reps == 0 || st.gpus != G || st.nics != K) return true;
    // Open-addressing set of the type's images (indexes into roles_).
    const std::size_t slots = std::size_t{kMaxImages} * 2;
    PodBuffer<std::uint32_t> set;
    if (!set.assign(slots, kNone)) return false;
    PodBuffer<std::int16_t> cur;
    if (!cur.resize(width)) return false;
    std::uint32_t count = 0;
    auto at = [&](std::uint32_t i) { return roles_.data() + out.first + std::size_t{i} * width; };
    // Insert the pattern in `cur`; false when the table is full.
    auto insert = [&](bool& added) -> bool {
      added = false;
      std::uint64_t h = 1469598103934665603ull;
      for (std::uint32_t x = 0; x < width; ++x) h = (h ^ static_cast<std::uint16_t>(cur[x])) * 1099511628211ull;
      for (std::size_t s = h % slots;; s = (s + 1) % slots) {
        if (set[s] == kNone) {
          if (count >= kMaxImages) return false;
          if (!roles_.append(width, kNoRole)) return false;
          std::int16_t* dst = at(count);
          for (std::uint32_t x = 0; x < width; ++x) dst[x] = cur[x];
          set[s] = count++;
          added = true;
          return true;
        }
        const std::int16_t* e = at(set[s]);
        bool same = true;
        for (std::uint32_t x = 0; x < width && same; ++x) same = e[x] == cur[x];
        if (same) return true;
      }
    };
    // Representatives by the roles they use, most first.
    const bool network = m.node_count() > 1;
    PodBuffer<std::uint32_t> order;
    PodBuffer<std::uint32_t> score;
    if (!order.resize(st.reps) || !score.resize(st.reps)) return false;
    for (std::uint32_t r = 0; r < st.reps; ++r) {
      const std::int16_t* roles = sp.rep(st, r);
      std::uint32_t net = 0, peer = 0;
      for (std::uint32_t g = 0; g < G; ++g) {
        net += (roles[g] >= static_cast<std::int16_t>(G)) + (roles[G + g] >= static_cast<std::int16_t>(G));
        peer += roles[g] >= 0 && roles[g] < static_cast<std::int16_t>(G);
      }
      order[r] = r;
      score[r] = network ? net * 1024 + peer : peer * 1024 + net;
    }
    for (std::uint32_t i = 1; i < st.reps; ++i)  // stable insertion sort, best first
      for (std::uint32_t j = i; j > 0 && score[order[j]] > score[order[j - 1]]; --j) {
        const std::uint32_t x = order[j];
        order[j] = order[j - 1];
        order[j - 1] = x;
      }
    bool full = false;
    for (std::uint32_t o = 0; o < st.reps && !full; ++o) {
      const std::int16_t* rep = sp.rep(st, order[o]);
      for (std::uint32_t x = 0; x < width; ++x) cur[x] = rep[x];
      bool added = false;
      const std::uint32_t orbit_first = count;
      if (!insert(added)) {
        full = true;
        break;
      }
      // Breadth-first: apply every generator to every image of the orbit.
      for (std::uint32_t i = orbit_first; i < count && !full; ++i) {
        for (std::uint32_t p = 0; p < P && !full; ++p) {
          const std::uint16_t* gp = sp.generator(st, p);
          const std::uint16_t* kp = gp + G;
          const std::int16_t* src = at(i);
          auto map = [&](std::int16_t role) -> std::int16_t {
            if (role < 0) return role;
            if (static_cast<std::uint32_t>(role) < G) return static_cast<std::int16_t>(gp[role]);
            return static_cast<std::int16_t>(G + kp[static_cast<std::uint32_t>(role) - G]);
          };
          for (std::uint32_t g = 0; g < G; ++g) {
            cur[gp[g]] = map(src[g]);
            cur[G + gp[g]] = map(src[G + g]);
          }
          if (!insert(added)) full = true;  // may move roles_: src is read again next time
        }
      }
    }
    // Keep the images the planner's model accepts as channels.
    std::uint32_t kept = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      if (!is_channel(m, tm, at(i))) continue;
      if (kept != i) {
        std::int16_t* dst = at(kept);
        const std::int16_t* src = at(i);
        for (std::uint32_t x = 0; x < width; ++x) dst[x] = src[x];
      }
      ++kept;
    }
    roles_.resize(out.first + std::size_t{kept} * width);
    out.count = kept;
    return true;
  }

  // Is the pattern a channel in the planner's model (see the file comment)?
  static bool is_channel(const ClusterModel& m, const TypeModel& t, const std::int16_t* roles) noexcept {
    const std::uint32_t G = t.gpus;
    double load[256];
    if (t.shared > 256) return false;  // not replayed: more tracked resources than a pattern check holds
    for (std::uint32_t r = 0; r < t.shared; ++r) load[r] = 0.0;
    const double* cap = m.caps(t);
    std::uint64_t nic_out = 0, nic_in = 0;
    auto add = [&](const RouteEntry& e) {
      const std::uint32_t* ids = m.shared_ids(e);
      for (std::uint32_t k = 0; k < e.shared_count; ++k) load[ids[k]] += e.gbps;
      return e.gbps > 0;
    };
    for (std::uint32_t g = 0; g < G; ++g) {
      const std::int16_t s = roles[g], r = roles[G + g];
      if (s >= 0) {
        const std::uint32_t x = static_cast<std::uint32_t>(s);
        if (x < G) {
          if (x == g || roles[G + x] != static_cast<std::int16_t>(g) || !add(m.gg(t, g, x))) return false;
        } else {
          const std::uint32_t k = x - G;
          if (k >= t.nics || !(t.usable_mask >> k & 1u) || (nic_out >> k & 1u)) return false;
          nic_out |= std::uint64_t{1} << k;
          if (!add(m.gn(t, g, k))) return false;
        }
      }
      if (r >= 0) {
        const std::uint32_t x = static_cast<std::uint32_t>(r);
        if (x < G) {
          if (x == g || roles[x] != static_cast<std::int16_t>(g)) return false;  // counted at its sender
        } else {
          const std::uint32_t k = x - G;
          if (k >= t.nics || !(t.usable_mask >> k & 1u) || (nic_in >> k & 1u)) return false;
          nic_in |= std::uint64_t{1} << k;
          if (!add(m.ng(t, k, g))) return false;
        }
      }
    }
    for (std::uint32_t r = 0; r < t.shared; ++r)
      if (load[r] > cap[r] * (1.0 + 1e-12)) return false;
    return true;
  }

  PodBuffer<TypeImages> types_;
  PodBuffer<std::int16_t> roles_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
