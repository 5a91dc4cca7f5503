// The planner's channel steps (docs/planner.md "The algorithm"): greedy
// channel packing at two levels, one step at a time. The jobs live in
// detail/:
//   remaining_demand.hpp  the bytes left, their totals, masks and priority orders
//   bounds.hpp            lower bounds on any plan of what is left
//   step_resources.hpp    what the step being built uses (lanes, ports, loads)
//   node_matching.hpp     (a) node level: which node a source node sends to
//   local_mapping.hpp     (b) GPU flows of a node pair through NIC pairs,
//                         (c) intra-node flows on the ports left idle
//   step_length.hpp       (d) the step's length and its flows' pieces
// This file runs them: per step (a) to (c) choose the flows, each at its
// route's solo rate and only where every resource keeps room for it (the
// step is a channel), then (d) cuts the pieces and the step is appended.
// A step finishes at least an eighth of its flows' payloads (at least one;
// StepLength::kFinishDivisor), so the step count is at most the number of
// non-zero off-diagonal demand entries, and does not grow with the number of
// distinct remainders.
//
// Memory: all scratch is sized once per catalog (Greedy::prepare) and reused;
// a call allocates only when its Plan needs more room than it has.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/catalog_view.hpp"
#include "vpcat/derived_patterns.hpp"
#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/detail/bounds.hpp"
#include "vpcat/planner/detail/flow.hpp"
#include "vpcat/planner/detail/local_mapping.hpp"
#include "vpcat/planner/detail/replay.hpp"
#include "vpcat/planner/detail/step_length.hpp"
#include "vpcat/planner/detail/subset_layout.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/detail/shared_step.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

class Greedy : public LocalMapping {
 public:
  // Destination nodes a source node may try in vain per pass before it
  // gives up its remaining lanes for the step (bounds the search only).
  static constexpr std::uint32_t kMaxMisses = 4;
  // Steps between two sorts of the source nodes by outbound bytes left.
  static constexpr std::uint32_t kResortNodes = 4;

  // Copy the catalog's pattern representatives and generators, and derive
  // those of the layout's partial nodes (at init, before the model; kept
  // derivations reused and new ones kept when `kept` is given; the replay
  // expands them in prepare_replay). False when memory is short.
  bool store_patterns(const CatalogView& cat, const SubsetLayout& layout, DerivedPatterns* kept) noexcept {
    return stored_.copy(cat, layout, kept);
  }
  const StoredPatterns& stored() const noexcept { return stored_; }
  // The replay cycle of `m` (at init, after the model): taken from `kept`
  // when it holds the cycle of this node type and flavour, else built from
  // the stored patterns (tens of milliseconds) and kept there. Only a node
  // type whose GPUs are held in the catalog's local order is kept (its
  // held set is then its key). False when memory is short.
  bool prepare_replay(const ClusterModel& m, const CatalogView& cat, const SubsetLayout& layout,
                      DerivedPatterns* kept) noexcept {
    const std::uint32_t f = Replay::flavour(m);
    // The key: the node type's catalog type and held GPUs, when ascending.
    std::uint32_t catalog_type = 0;
    std::uint64_t held = 0;
    bool keyed = kept != nullptr && f != 0;
    if (keyed) {
      const SubsetLayout::Type& lt = layout.type(layout.node(0).type);
      const std::uint16_t* h = layout.held(lt);
      catalog_type = lt.catalog_type;
      for (std::uint32_t g = 0; g < lt.gpus && keyed; ++g) {
        keyed = h[g] < 64 && (g == 0 || h[g] > h[g - 1]);
        held |= std::uint64_t{1} << (h[g] & 63);
      }
    }
    // A kept cycle is copied under the kept object's lock and loaded (node
    // matchings built) outside it.
    PodBuffer<std::uint64_t> words;
    bool found = false, ok = true;
    if (keyed)
      found = kept->find_cycle(cat, catalog_type, held, f, [&](const std::uint64_t* w, std::size_t n) {
        ok = words.resize(n);
        for (std::size_t i = 0; ok && i < n; ++i) words[i] = w[i];
      });
    if (found) {
      ok = ok && replay_.load(m, words.data(), words.size());
    } else {
      ok = replay_.build(m, stored_);
      if (ok && keyed && replay_.save(words)) kept->insert_cycle(cat, catalog_type, held, f, words.data(), words.size());
    }
    return ok && replay_.prepare(m);  // the scratch, after build or load reset the replay
  }
  const Replay& replay() const noexcept { return replay_; }

  // Size the scratch for `m`; false when memory is short.
  bool prepare(const ClusterModel& m) noexcept {
    return prepare_demand(m) && prepare_resources(m) && prepare_matching() && bounds_.prepare(m) &&
           length_.prepare(m.gpu_count());
  }

  // See Bounds::endpoint_us.
  double endpoint_bound_us(const ClusterModel& m) noexcept { return bounds_.endpoint_us(m, *this); }

  // A point where the channel steps could stop and a shared step carry the
  // rest: the plan's size and expected time there, and the shared step's
  // expectation for the remaining demand.
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
    // The balanced part first, replayed from the catalog's patterns.
    bool stopped = false;
    if (o.replay && replay_.ready() && Replay::balanced(*this)) {  // the cycle is built by init
      auto hopeless = [&](double us, std::uint32_t k) { return cannot_beat(m, o, us, give_up_us, k); };
      if (PlanStatus s = replay_.run(m, *this, o, floor_us, give_up_us, hopeless, steps, transfers, expected_us,
                                     stopped);
          !s.ok())
        return s;
    }
    if (stopped && rest != nullptr) {
      gave_up = true;
      return {};
    }
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
      begin_step_resources(m);
      begin_matching();
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
        fill_intra(m, a, o.nic_loopback);
      }
      if (flows_.empty())  // cannot happen: the first candidate of a step always fits
        return PlanStatus::at(PlanError::unroutable, "plan", "no transfer fits in step %zu", steps.size());
      if (PlanStatus s = finish_step(m, o, floor_us, steps, transfers, expected_us); !s.ok()) return s;
      if (expected_us > give_up_us || projected_over(expected_us, give_up_us) ||
          cannot_beat(m, o, expected_us, give_up_us, step_index)) {
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
  // Once 5% of the bytes are planned, a plan whose pace (expected time per
  // byte so far) projects kGiveUpMargin over the alternative is abandoned:
  // the first steps, which carry the heaviest payloads, are its best ones.
  static constexpr double kGiveUpMargin = 1.1;
  bool projected_over(double expected_us, double give_up_us) const noexcept {
    const double done = 1.0 - static_cast<double>(total_left_) / static_cast<double>(loaded_bytes_);
    return done >= 0.05 && expected_us > give_up_us * kGiveUpMargin * done;
  }

  // Whether no continuation of the steps so far can end under give_up_us:
  // every step left costs at least the latency, and any plan of the bytes
  // left (more channel steps, or the shared step after a checkpoint) at
  // least their cut bound (Bounds::endpoint_us) on top of that, for each
  // step's estimate is at least its latency plus any resource's bytes over
  // its capacity (a channel step's transfers fit within every capacity at
  // their solo rates, so its longest transfer lasts at least that long; a
  // sharing step's busiest resource is estimated at no more than its
  // capacity). Giving up then changes no choice: the other candidate is
  // shorter than every plan this run could still reach. Checked every
  // kBoundEvery steps (O(GPUs + nodes), O(nodes^2) on a leaf/spine fabric).
  static constexpr std::uint32_t kBoundEvery = 8;
  bool cannot_beat(const ClusterModel& m, const PlanOptions& o, double expected_us, double give_up_us,
                   std::uint32_t step_index) noexcept {
    if (total_left_ == 0 || step_index % kBoundEvery != kBoundEvery - 1) return false;
    return expected_us + o.latency_us + bounds_.endpoint_us(m, *this) > give_up_us * (1.0 + 1e-9);
  }

  PlanStatus finish_step(const ClusterModel& m, const PlanOptions& o, double floor_us, PodBuffer<PlanStep>& steps,
                         PodBuffer<PlanTransfer>& transfers, double& expected_us) noexcept {
    const double tau = length_.choose(*this, flows_.data(), flows_.size(), o.latency_us, floor_us);
    if (PlanStatus st = StepLength::append(m, *this, flows_.data(), flows_.size(), tau, o, steps, transfers,
                                           expected_us);
        !st.ok())
      return st;
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

  Bounds bounds_;
  StepLength length_;
  StoredPatterns stored_;
  Replay replay_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
