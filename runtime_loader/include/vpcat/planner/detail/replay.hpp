// Replay (docs/planner.md "Replay"): the balanced part of a demand planned
// from the catalog's stored channels, not searched.
//
// Built once, by the planner's init (or taken from a DerivedPatterns that keeps it), for a cluster whose
// nodes are all of one type, from that type's pattern table
// (pattern_table.hpp):
//
// * a *cycle* of rounds. A round is one image Q of a stored pattern and one
//   NIC matching mu (NIC i of a sending node to NIC mu(i) of its receiver:
//   the identity on rails, a rotation of the usable NICs on one switch or a
//   leaf/spine fabric). Its network roles pair the GPU that sends from NIC i
//   in Q with the GPU that receives at NIC mu(i) in Q. A lazy greedy cover
//   picks the rounds so that together they pair every GPU of one node with
//   every GPU of another, the fastest routes first; on a single node, it
//   covers the peer-to-peer pairs instead.
// * per round, its *options*: the images with exactly Q's network roles (up
//   to kMaxOptions, those with the most peer-to-peer roles first), found by
//   their network signature. They differ in the peer-to-peer roles they give
//   the GPUs the network leaves free.
//
// At plan time, for each node shift s = 1 .. N-1 (node a sends to a + s mod
// N: a node-level matching that keeps every NIC at one flow per direction)
// and each round, one step: in every node, the round's network roles with
// the shifted partner and the peer roles of the option whose pairs have the
// most bytes left (up to the step's length), for the pairs that still have
// bytes. Each node's part is a subset of one stored image and the
// node-level matching a permutation, so every step is a channel by
// construction; nothing is searched. On a leaf/spine fabric the source
// nodes of a shift are packed first-fit into sub-rounds whose spine uplink
// and downlink loads stay within capacity. A single node replays its cycle
// once.
//
// A step's length is the k-th longest remaining time of its network flows
// (of all its flows on a single node) at their solo rates, k = ceil(flows /
// 8): the longest eighth is cut, and peer flows fill the step and are cut to
// it. A step is skipped when fewer than half of its roles have bytes or its
// ports would idle for more than a quarter of it, and the replay stops at
// the first node matching whose rounds are all skipped: the search
// (greedy.hpp) plans what is left, the skewed part of the demand. A demand
// in which one GPU sends or receives more than kMaxSkew times the mean is
// not replayed at all (balanced()).
//
// Cost: the build O(images x (GPUs + rotations x rounds)) with the lazy cover;
// a plan O(steps x (nodes x options x GPUs)) with no search.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/node_matchings.hpp"
#include "vpcat/planner/detail/pattern_table.hpp"
#include "vpcat/planner/detail/remaining_demand.hpp"
#include "vpcat/planner/detail/step_length.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class Replay {
 public:
  // Options (images with the round's network roles) kept per round.
  static constexpr std::uint32_t kMaxOptions = 16;
  // A cycle longer than this many times the least one is not replayed.
  static constexpr double kMaxCycleExcess = 1.25;
  // A replayed step keeps its ports busy for at least this share of it.
  static constexpr double kMinBusy = 0.75;
  // Replayed only when no GPU sends or receives more than this many times
  // the mean bytes per GPU and direction (balanced()).
  static constexpr double kMaxSkew = 1.25;

  // One role pair: local GPU g sends to local GPU h, through NICs i and j
  // (network: h is the partner node's) or kNoNic (peer-to-peer), at the
  // solo rate of its local routes (a spine it crosses may lower it).
  struct Role {
    std::uint16_t g, h, i, j;
    double gbps = 0.0;
    double us_per_byte = 0.0;  // 1 / (gbps x 1e3)
  };

  // Build the cycle for `m` from the stored patterns, expanding those of
  // its node type (pattern_table.hpp) only when the cluster qualifies
  // (flavour()). Not ready (the search plans every step) when it does not;
  // false only when memory is short.
  bool build(const ClusterModel& m, const StoredPatterns& sp) noexcept {
    *this = Replay();
    const std::uint32_t f = flavour(m);
    if (f == 0) return true;
    network_ = (f & kNetwork) != 0;
    const std::uint32_t type = m.node(0).type;
    const TypeModel& t = m.type(type);
    PatternTable p;
    if (!p.build(sp, m, type)) return false;
    const PatternTable::TypeImages& ti = p.type(type);
    if (ti.count == 0) return true;
    Init in;
    if (!summarize(p, ti, t, in)) return false;
    // Rails join NIC k only to NIC k: the matching is the identity there.
    if (!cover(m, t, in, network_ && !(f & kRail) ? in.U : 1)) return false;
    // The cycle pays only when it is short: at most kMaxCycleExcess times
    // the rounds any cycle needs (every node pair's G x G GPU pairs, at most
    // one per usable NIC and round; on one node, the peer pairs at most the
    // largest image's peer roles a round).
    std::uint32_t most_peers = 1;
    for (std::uint32_t q = 0; q < ti.count; ++q)
      if (in.peer_first[q + 1] - in.peer_first[q] > most_peers) most_peers = in.peer_first[q + 1] - in.peer_first[q];
    const std::uint64_t pairs = network_ ? std::uint64_t{t.gpus} * t.gpus : std::uint64_t{t.gpus} * (t.gpus - 1);
    const std::uint64_t per_round = network_ ? in.U : most_peers;
    const double least = static_cast<double>((pairs + per_round - 1) / per_round);
    if (rounds_.empty() || static_cast<double>(rounds_.size()) > kMaxCycleExcess * least) {
      rounds_.clear();
      options_.clear();
      roles_.clear();
      return true;
    }
    return finish(m, f);
  }

  // Whether `m` can be replayed, and how its cycle is built: 0 when it
  // cannot (mixed node types, a node beyond 64 GPUs or NICs, a network
  // without a fabric or usable NICs, a single GPU), else kCycle with
  // kNetwork (more than one node) and kRail (rails: NIC k to NIC k). A
  // cycle depends only on the node type and this flavour; the node
  // matchings, on the cluster.
  static constexpr std::uint32_t kCycle = 1, kNetwork = 2, kRail = 4;
  static std::uint32_t flavour(const ClusterModel& m) noexcept {
    const std::uint32_t N = m.node_count();
    if (N == 0 || m.gpu_count() < 2) return 0;
    const std::uint32_t type = m.node(0).type;
    for (std::uint32_t a = 1; a < N; ++a)
      if (m.node(a).type != type) return 0;  // one node type only
    const TypeModel& t = m.type(type);
    if (t.gpus > 64 || t.nics > 64) return 0;
    if (N == 1) return kCycle;
    if (!m.has_fabric() || t.usable == 0) return 0;
    return kCycle | kNetwork | (m.node_switch(0) == kNone ? kRail : 0);
  }

  // The cycle as words (for DerivedPatterns): the round, option and role
  // counts, then each round (2 words), option (1) and role (1: its GPUs and
  // NICs; the rates are the model's, recomputed by load); no rounds when
  // the cycle was not kept (too long) or the cluster has none.
  bool save(PodBuffer<std::uint64_t>& out) const noexcept {
    out.clear();
    const std::size_t words = 3 + 2 * rounds_.size() + options_.size() + roles_.size();
    if (!out.reserve(words)) return false;
    out.push_back(rounds_.size());
    out.push_back(options_.size());
    out.push_back(roles_.size());
    for (const Round& r : rounds_) {
      out.push_back(std::uint64_t{r.net_first} << 32 | r.net);
      out.push_back(std::uint64_t{r.opt_first} << 32 | r.opts);
    }
    for (const Option& o : options_) out.push_back(std::uint64_t{o.first} << 32 | o.count);
    for (const Role& r : roles_)
      out.push_back(std::uint64_t{r.g} << 48 | std::uint64_t{r.h} << 32 | std::uint64_t{r.i} << 16 | r.j);
    return true;
  }
  // The cycle `save` wrote for a cluster of the same node type and
  // flavour, finished for `m` (its node matchings), every role's rate
  // taken from `m`. Words that do not hold a cycle of this type (counts
  // that do not add up, a range past its array, a GPU or NIC out of range
  // or a NIC the type cannot use, a network role in a round of one node, a
  // peer role with a NIC or from a GPU to itself) leave the replay off: the
  // search plans every step. False only when memory is short.
  bool load(const ClusterModel& m, const std::uint64_t* w, std::size_t count) noexcept {
    *this = Replay();
    const std::uint32_t f = flavour(m);
    if (f == 0 || count < 3) return true;
    network_ = (f & kNetwork) != 0;
    const std::uint64_t nr = w[0], no = w[1], nl = w[2];
    if (nr > count || no > count || nl > count || 3 + 2 * nr + no + nl != count) return true;
    if (nr == 0) return true;
    if (!rounds_.reserve(nr) || !options_.reserve(no) || !roles_.reserve(nl)) return false;
    const std::uint64_t* x = w + 3;
    const TypeModel& t = m.type(m.node(0).type);
    auto usable = [&](std::uint16_t k) { return k < t.nics && (t.usable_mask >> k & 1u) != 0; };
    bool valid = true;
    for (std::uint64_t k = 0; k < nr; ++k, x += 2) {
      const Round r{static_cast<std::uint32_t>(x[0] >> 32), static_cast<std::uint32_t>(x[0]),
                    static_cast<std::uint32_t>(x[1] >> 32), static_cast<std::uint32_t>(x[1])};
      valid = valid && std::uint64_t{r.net_first} + r.net <= nl && std::uint64_t{r.opt_first} + r.opts <= no &&
              (network_ || r.net == 0);
      rounds_.push_back(r);
    }
    for (std::uint64_t k = 0; k < no; ++k, ++x) {
      const Option o{static_cast<std::uint32_t>(*x >> 32), static_cast<std::uint32_t>(*x)};
      valid = valid && std::uint64_t{o.first} + o.count <= nl;
      options_.push_back(o);
    }
    for (std::uint64_t k = 0; k < nl; ++k, ++x) {
      const Role r{static_cast<std::uint16_t>(*x >> 48), static_cast<std::uint16_t>(*x >> 32),
                   static_cast<std::uint16_t>(*x >> 16), static_cast<std::uint16_t>(*x)};
      valid = valid && r.g < t.gpus && r.h < t.gpus;
      roles_.push_back(r);
    }
    // Network roles have usable NICs at both ends; peer roles none.
    for (std::size_t k = 0; valid && k < rounds_.size(); ++k)
      for (std::uint32_t e = rounds_[k].net_first; valid && e < rounds_[k].net_first + rounds_[k].net; ++e) {
        valid = usable(roles_[e].i) && usable(roles_[e].j);
        if (valid) roles_[e] = rated(m, t, roles_[e]);
      }
    for (std::size_t k = 0; valid && k < options_.size(); ++k)
      for (std::uint32_t e = options_[k].first; valid && e < options_[k].first + options_[k].count; ++e) {
        valid = roles_[e].i == kNoNic && roles_[e].j == kNoNic && roles_[e].g != roles_[e].h;
        if (valid) roles_[e] = rated(m, t, roles_[e]);
      }
    // Every role is some round's or option's, so rated.
    for (std::size_t e = 0; valid && e < roles_.size(); ++e) valid = roles_[e].gbps > 0.0;
    if (!valid) {
      *this = Replay();
      return true;
    }
    return finish(m, f);
  }

  // A cycle gives every GPU the same share of the steps' ports. A GPU
  // loaded beyond the others needs its ports in every step, and a replay
  // first would leave them idle where that GPU bounds the plan (a receiver
  // of 10x the bytes on the 256-GPU leaf/spine platform: 1.23x the bound
  // replayed, 1.05x searched): such a demand is searched from the start.
  static bool balanced(const RemainingDemand& rem) noexcept {
    const std::uint32_t n = rem.gpu_count();
    std::uint64_t top = 0;
    double sum = 0.0;
    for (std::uint32_t g = 0; g < n; ++g) {
      const std::uint64_t s = rem.send_left(g), r = rem.recv_left(g);
      top = s > top ? s : top;
      top = r > top ? r : top;
      sum += static_cast<double>(s) + static_cast<double>(r);
    }
    return n > 0 && static_cast<double>(top) <= kMaxSkew * sum / (2.0 * n);
  }

  bool ready() const noexcept { return ready_; }
  std::uint32_t round_count() const noexcept { return ready_ ? static_cast<std::uint32_t>(rounds_.size()) : 0; }

  // Size the per-call scratch for `m`; false when memory is short.
  bool prepare(const ClusterModel& m) noexcept {
    return flows_.reserve(m.gpu_count()) && times_.resize(m.gpu_count()) && net_us_.resize(m.gpu_count());
  }

  // Append the replayed steps of the demand left in `rem` (balanced(): the
  // caller checks it, before building), taking their bytes off it. Stops early, `stopped` set, when the steps' expected times
  // pass give_up_us, hopeless(expected_us, steps replayed so far) says no continuation can beat it, or the plan
  // reaches max_steps.
  template <class Hopeless>
  PlanStatus run(const ClusterModel& m, RemainingDemand& rem, const PlanOptions& o, double floor_us,
                 double give_up_us, Hopeless&& hopeless, PodBuffer<PlanStep>& steps,
                 PodBuffer<PlanTransfer>& transfers, double& expected_us, bool& stopped) noexcept {
    stopped = false;
    if (!ready_) return {};
    const std::uint32_t matchings = network_ ? matchings_.count() : 1;
    std::uint32_t replayed = 0;
    for (std::uint32_t j = 0; j < matchings; ++j) {
      const std::size_t before = steps.size();
      for (std::uint32_t r = 0; r < rounds_.size(); ++r) {
        if (rem.total_left() == 0) return {};
        if (steps.size() >= o.max_steps) {
          stopped = true;
          return {};
        }
        const double tau = collect(m, rem, j, r, floor_us);
        if (flows_.empty() || 2 * flows_.size() < candidates_) continue;
        if (PlanStatus st = emit(m, rem, o, tau, steps, transfers, expected_us); !st.ok()) return st;
        // After every step, its last included: a replay that ends the plan
        // past give_up_us is given up too (the other candidate is shorter).
        if (expected_us > give_up_us || hopeless(expected_us, replayed++)) {
          stopped = true;
          return {};
        }
      }
      // A whole node matching with no step worth replaying: what is left is
      // not balanced (a skewed demand, or the skewed rest of one), and the
      // other matchings would be skipped alike. The search plans it.
      if (steps.size() == before) return {};
    }
    return {};
  }

 private:
  struct Round {
    std::uint32_t net_first, net;  // roles_[net_first, net_first + net): network roles
    std::uint32_t opt_first, opts; // options_[opt_first, opt_first + opts)
  };
  struct Option {
    std::uint32_t first, count;  // roles_[first, first + count): peer-to-peer roles
  };

  // r with its rate: the solo rate of its local routes, GPU -> NIC i and
  // NIC j -> GPU for a network role, GPU -> GPU for a peer role.
  static Role rated(const ClusterModel& m, const TypeModel& t, Role r) noexcept {
    r.gbps = r.i == kNoNic ? m.gg(t, r.g, r.h).gbps : min2(m.gn(t, r.g, r.i).gbps, m.ng(t, r.j, r.h).gbps);
    r.us_per_byte = 1.0 / (r.gbps * 1e3);
    return r;
  }

  // The cluster's part of a cycle: the most network rate one node's flows
  // of one round carry (each role at most the slowest spine), and the node
  // matchings; ready_ set.
  bool finish(const ClusterModel& m, std::uint32_t f) noexcept {
    max_round_gbps_ = 0.0;
    for (const Round& rd : rounds_) {
      double gbps = 0.0;
      if (network_)
        for (std::uint32_t x = rd.net_first; x < rd.net_first + rd.net; ++x)
          gbps += min2(roles_[x].gbps, m.min_spine_gbps());
      if (gbps > max_round_gbps_) max_round_gbps_ = gbps;
    }
    spine_ = network_ && m.spine() && !(f & kRail);
    if (network_) {
      if (!matchings_.build(m, spine_, max_round_gbps_)) return false;
      if (matchings_.count() == 0) return true;
    }
    ready_ = true;
    return true;
  }

  // What the cover reads of every image: per usable NIC position the GPU
  // that sends from it and the one that receives at it, the peer pairs, and
  // a hash of the network roles.
  struct Init {
    std::uint32_t G = 0, U = 0;
    std::uint16_t usable[64];
    std::int16_t upos[64];
    PodBuffer<std::int16_t> send_at, recv_at;  // [image][U]
    PodBuffer<std::uint32_t> peer_first;       // [image + 1] into peers
    PodBuffer<Role> peers;
    PodBuffer<std::uint64_t> sig;                // [image]: network-role hash
    PodBuffer<std::uint32_t> by_sig;             // images sorted by sig
  };

  bool summarize(const PatternTable& p, const PatternTable::TypeImages& ti, const TypeModel& t,
                 Init& in) noexcept {
    const std::uint32_t G = t.gpus;
    in.G = G;
    for (std::uint32_t k = 0; k < 64; ++k) in.upos[k] = -1;
    for (std::uint32_t k = 0; k < t.nics; ++k)
      if (t.usable_mask >> k & 1u) in.upos[k] = static_cast<std::int16_t>(in.U), in.usable[in.U++] = static_cast<std::uint16_t>(k);
    const std::size_t M = ti.count, U = in.U ? in.U : 1;
    if (!in.send_at.assign(M * U, -1) || !in.recv_at.assign(M * U, -1) || !in.peer_first.resize(M + 1) ||
        !in.sig.resize(M) || !in.by_sig.resize(M))
      return false;
    for (std::uint32_t q = 0; q < M; ++q) {
      const std::int16_t* s = p.send(ti, q);
      const std::int16_t* r = p.recv(ti, q);
      in.peer_first[q] = static_cast<std::uint32_t>(in.peers.size());
      std::uint64_t h = 1469598103934665603ull;
      for (std::uint32_t g = 0; g < G; ++g) {
        if (s[g] >= static_cast<std::int16_t>(G)) {
          in.send_at[q * U + static_cast<std::uint32_t>(in.upos[s[g] - G])] = static_cast<std::int16_t>(g);
          h = (h ^ (0x10000u + static_cast<std::uint32_t>(g) * 256u + static_cast<std::uint32_t>(s[g]))) * 1099511628211ull;
        } else if (s[g] >= 0) {
          if (!in.peers.push_back(Role{static_cast<std::uint16_t>(g), static_cast<std::uint16_t>(s[g]), kNoNic, kNoNic}))
            return false;
        }
        if (r[g] >= static_cast<std::int16_t>(G)) {
          in.recv_at[q * U + static_cast<std::uint32_t>(in.upos[r[g] - G])] = static_cast<std::int16_t>(g);
          h = (h ^ (0x20000u + static_cast<std::uint32_t>(g) * 256u + static_cast<std::uint32_t>(r[g]))) * 1099511628211ull;
        }
      }
      in.sig[q] = h;
      in.by_sig[q] = q;
    }
    in.peer_first[M] = static_cast<std::uint32_t>(in.peers.size());
    // Options first by their number of peer roles within one signature.
    std::sort(in.by_sig.data(), in.by_sig.data() + M, [&](std::uint32_t x, std::uint32_t y) {
      if (in.sig[x] != in.sig[y]) return in.sig[x] < in.sig[y];
      const std::uint32_t px = in.peer_first[x + 1] - in.peer_first[x], py = in.peer_first[y + 1] - in.peer_first[y];
      return px != py ? px > py : x < y;
    });
    return true;
  }

  // The pairs of (image q, rotation rho) still uncovered, and a score that
  // only falls as the cover grows: new pairs first, then their solo rates.
  struct Gain {
    std::uint32_t pairs = 0;
    double gbps = 0.0;
    double score() const noexcept { return pairs * 1e6 + gbps; }
  };
  Gain gain(const ClusterModel& m, const TypeModel& t, const Init& in, const std::uint64_t* left, std::uint32_t q,
            std::uint32_t rho, bool commit, std::uint64_t* update) const noexcept {
    Gain out;
    const std::uint32_t U = in.U ? in.U : 1;
    if (network_) {
      for (std::uint32_t x = 0; x < in.U; ++x) {
        const std::int16_t g = in.send_at[q * U + x];
        const std::int16_t h = in.recv_at[q * U + (x + rho) % in.U];
        if (g < 0 || h < 0 || !(left[g] >> h & 1u)) continue;
        ++out.pairs;
        out.gbps += min2(m.gn(t, static_cast<std::uint32_t>(g), in.usable[x]).gbps,
                         m.ng(t, in.usable[(x + rho) % in.U], static_cast<std::uint32_t>(h)).gbps);
        if (commit) update[g] &= ~bit(static_cast<std::uint32_t>(h));
      }
    } else {
      for (std::uint32_t e = in.peer_first[q]; e < in.peer_first[q + 1]; ++e) {
        const Role& r = in.peers[e];
        if (!(left[r.g] >> r.h & 1u)) continue;
        ++out.pairs;
        out.gbps += m.gg(t, r.g, r.h).gbps;
        if (commit) update[r.g] &= ~bit(r.h);
      }
    }
    return out;
  }

  // The lazy greedy cover (scores only fall, so a re-scored candidate still
  // at the top of the heap is the best).
  bool cover(const ClusterModel& m, const TypeModel& t, const Init& in, std::uint32_t rotations) noexcept {
    const std::uint32_t G = in.G;
    std::uint64_t left[64];
    const std::uint64_t all = G == 64 ? ~std::uint64_t{0} : bit(G) - 1;
    for (std::uint32_t g = 0; g < G; ++g) left[g] = network_ ? all : all & ~bit(g);
    std::uint64_t total = network_ ? std::uint64_t{G} * G : std::uint64_t{G} * (G - 1);
    struct Cand {
      double score;
      std::uint32_t q, rho;
    };
    PodBuffer<Cand> heap;
    const std::uint32_t images = static_cast<std::uint32_t>(in.sig.size());
    if (!heap.reserve(std::size_t{images} * rotations)) return false;
    for (std::uint32_t q = 0; q < images; ++q)
      for (std::uint32_t rho = 0; rho < rotations; ++rho) {
        const Gain gn = gain(m, t, in, left, q, rho, false, nullptr);
        if (gn.pairs > 0) heap.push_back(Cand{gn.score(), q, rho});
      }
    auto less = [](const Cand& x, const Cand& y) { return x.score < y.score || (x.score == y.score && x.q > y.q); };
    std::make_heap(heap.data(), heap.data() + heap.size(), less);
    std::size_t size = heap.size();
    const std::size_t max_rounds = 4 * std::size_t{G} * G + 16;
    // Re-scored candidates are bounded too (a catalog is untrusted, and
    // scores that fall by one pair at a time could re-score the heap once
    // per round): past the budget the cover stops where it is, and the
    // search plans the pairs it did not reach.
    std::size_t budget = 8 * size + 64 * max_rounds;
    while (total > 0 && size > 0 && rounds_.size() < max_rounds && budget-- > 0) {
      std::pop_heap(heap.data(), heap.data() + size, less);
      Cand c = heap[size - 1];
      const Gain now = gain(m, t, in, left, c.q, c.rho, false, nullptr);
      if (now.pairs == 0) {
        --size;
        continue;
      }
      if (size > 1 && now.score() < heap[0].score) {  // stale: back in the heap with its true score
        heap[size - 1].score = now.score();
        std::push_heap(heap.data(), heap.data() + size, less);
        continue;
      }
      --size;
      gain(m, t, in, left, c.q, c.rho, true, left);
      total -= now.pairs;
      if (!add_round(m, t, in, c.q, c.rho)) return false;
    }
    return true;
  }

  bool add_round(const ClusterModel& m, const TypeModel& t, const Init& in, std::uint32_t q,
                 std::uint32_t rho) noexcept {
    const std::uint32_t U = in.U ? in.U : 1;
    Round rd{static_cast<std::uint32_t>(roles_.size()), 0, static_cast<std::uint32_t>(options_.size()), 0};
    if (network_) {
      for (std::uint32_t x = 0; x < in.U; ++x) {
        const std::uint32_t y = (x + rho) % in.U;
        const std::int16_t g = in.send_at[q * U + x], h = in.recv_at[q * U + y];
        if (g < 0 || h < 0) continue;
        const Role role{static_cast<std::uint16_t>(g), static_cast<std::uint16_t>(h), in.usable[x], in.usable[y]};
        if (!roles_.push_back(rated(m, t, role))) return false;
        ++rd.net;
      }
    }
    // Options: the images of q's signature with exactly q's network roles.
    const std::uint32_t* first = std::lower_bound(in.by_sig.data(), in.by_sig.data() + in.sig.size(), q,
                                                  [&](std::uint32_t x, std::uint32_t) { return in.sig[x] < in.sig[q]; });
    const std::uint32_t* end = in.by_sig.data() + in.sig.size();
    for (const std::uint32_t* it = first; it != end && in.sig[*it] == in.sig[q] && rd.opts < kMaxOptions; ++it) {
      bool same = true;
      for (std::uint32_t x = 0; x < in.U && same; ++x)
        same = in.send_at[*it * U + x] == in.send_at[q * U + x] && in.recv_at[*it * U + x] == in.recv_at[q * U + x];
      if (!same) continue;
      Option o{static_cast<std::uint32_t>(roles_.size()), 0};
      for (std::uint32_t e = in.peer_first[*it]; e < in.peer_first[*it + 1]; ++e, ++o.count) {
        if (!roles_.push_back(rated(m, t, in.peers[e]))) return false;  // a peer role: no NICs
      }
      if (!options_.push_back(o)) return false;
      ++rd.opts;
    }
    return rounds_.push_back(rd);
  }

  // The flows of round r with node matching j that still have bytes, and
  // the step's length; candidates_ counts the roles the step offers.
  double collect(const ClusterModel& m, const RemainingDemand& rem, std::uint32_t j, std::uint32_t r,
                 double floor_us) noexcept {
    flows_.clear();
    candidates_ = 0;
    const std::uint32_t N = m.node_count();
    const std::size_t n = m.gpu_count();
    const std::uint64_t* R = rem.remaining();
    const Round& rd = rounds_[r];
    // Network flows first: they set the step's length.
    std::size_t timed = 0;
    double longest = 0.0;
    if (network_) {
      const Role* net = roles_.data() + rd.net_first;
      const NodeMatchings::Pair* pairs = matchings_.pairs(j);
      for (std::uint32_t y = 0, pc = matchings_.size(j); y < pc; ++y) {
        const std::uint32_t a = pairs[y].a, b = pairs[y].b;
        const std::uint32_t ga = m.node(a).first_gpu, gb = m.node(b).first_gpu;
        // A crossing of the spine (leaf/spine: every NIC of a node on its leaf).
        double spine = std::numeric_limits<double>::infinity();
        if (spine_ && m.node_switch(a) != m.node_switch(b))
          spine = min2(m.spine_cap(m.node_switch(a)), m.spine_cap(m.node_switch(b)));
        candidates_ += rd.net;
        for (std::uint32_t x = 0; x < rd.net; ++x) {
          const Role& e = net[x];
          const std::uint32_t g = ga + e.g, h = gb + e.h;
          if (R[g * n + h] == 0) continue;
          const double gbps = min2(e.gbps, spine);
          flows_.push_back(Flow{g, h, a, b, e.i, e.j, gbps});
          net_us_[timed] = times_[timed] = static_cast<double>(R[g * n + h]) / (gbps * 1e3);
          if (times_[timed] > longest) longest = times_[timed];
          ++timed;
        }
      }
    }
    net_count_ = timed;
    double tau = step_length(timed, longest, floor_us);
    // Peer roles: per node, the option with the longest remaining pair (the
    // pairs whose routes are slowest, through the forwarders that carry the
    // fewest flows at once, are the ones a node runs out of time for), then
    // with the most time left up to tau (all of it on a single node, where no
    // network flow sets tau).
    const std::size_t first_peer = flows_.size();
    for (std::uint32_t a = 0; a < N; ++a) {
      if (rem.intra_bytes_left(a) == 0) continue;
      const std::uint32_t ga = m.node(a).first_gpu;
      std::uint32_t best = kNone;
      double best_max = 0.0, best_sum = 0.0;
      for (std::uint32_t o = 0; o < rd.opts; ++o) {
        const Option& op = options_[rd.opt_first + o];
        double sum = 0.0, top = 0.0;
        for (std::uint32_t e = 0; e < op.count; ++e) {
          const Role& x = roles_[op.first + e];
          const double tx = static_cast<double>(R[(ga + x.g) * n + ga + x.h]) * x.us_per_byte;
          sum += network_ && tx > tau ? tau : tx;
          if (tx > top) top = tx;
        }
        if (top > best_max || (top == best_max && sum > best_sum)) best_max = top, best_sum = sum, best = o;
      }
      if (best == kNone) continue;
      const Option& op = options_[rd.opt_first + best];
      candidates_ += op.count;
      for (std::uint32_t e = 0; e < op.count; ++e) {
        const Role& x = roles_[op.first + e];
        const std::uint32_t g = ga + x.g, h = ga + x.h;
        if (R[g * n + h] == 0) continue;
        flows_.push_back(Flow{g, h, a, a, kNoNic, kNoNic, x.gbps});
      }
    }
    if (!network_ || timed == 0) {  // no network flow: the peer flows set the length
      timed = 0;
      longest = 0.0;
      for (std::size_t x = first_peer; x < flows_.size(); ++x) {
        const Flow& f = flows_[x];
        times_[timed] = static_cast<double>(R[f.g * n + f.h]) / (f.gbps * 1e3);
        if (times_[timed] > longest) longest = times_[timed];
        ++timed;
      }
      tau = step_length(timed, longest, floor_us);
    }
    return tau;
  }

  // The k-th longest of times_[0, count), k = ceil(count / 8), and the floor
  // when at least that long and shorter than the longest.
  double step_length(std::size_t count, double longest, double floor_us) noexcept {
    if (count == 0) return 0.0;
    const std::size_t k = StepLength::finish_count(count);
    std::nth_element(times_.data(), times_.data() + (k - 1), times_.data() + count,
                     [](double x, double y) { return x > y; });
    double tau = times_[k - 1];
    if (tau < floor_us) tau = longest < floor_us ? longest : floor_us;
    return tau;
  }

  PlanStatus emit(const ClusterModel& m, RemainingDemand& rem, const PlanOptions& o, double tau,
                  PodBuffer<PlanStep>& steps, PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    const std::size_t n = rem.gpu_count(), c = flows_.size();
    const std::uint64_t* R = rem.remaining();
    // Skipped when its ports would idle for more than 1 - kMinBusy of it.
    double busy = 0.0;
    for (std::size_t x = 0; x < c; ++x) {
      // The network flows' times as collect() found them (the same bytes).
      const double t = x < net_count_ ? net_us_[x]
                                       : static_cast<double>(R[flows_[x].g * n + flows_[x].h]) / (flows_[x].gbps * 1e3);
      busy += t < tau ? t : tau;
    }
    if (busy < kMinBusy * tau * static_cast<double>(c)) return {};
    return StepLength::append(m, rem, flows_.data(), c, tau, o, steps, transfers, expected_us);
  }

  bool ready_ = false, network_ = false, spine_ = false;
  double max_round_gbps_ = 0.0;  // the most network rate one node's flows of one round carry
  PodBuffer<Round> rounds_;
  PodBuffer<Option> options_;
  PodBuffer<Role> roles_;
  NodeMatchings matchings_;
  PodBuffer<Flow> flows_;
  PodBuffer<double> times_;
  PodBuffer<double> net_us_;    // the step's network flows' remaining times, in flows_ order
  std::size_t net_count_ = 0;   // flows_[0, net_count_) are network flows
  std::size_t candidates_ = 0;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
