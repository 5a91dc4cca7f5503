// Where an N-GPU job should go among a cluster's free GPUs (docs/subsets.md
// "Choosing a placement"): fast under the runtime's model, and among the
// placements about as fast, the one that leaves the fewest partial nodes.
//
//   vpcat::Placement where;
//   vpcat::PlaceOptions o;                        // slack 0.05, default PlanOptions
//   const vpcat::PlanStatus s =
//       vpcat::place(view, free, free_count, 16, vpcat::Demand::dense(bytes, 16), o, where);
//   // where.chosen_gpus(): 16 catalog GPU indexes, the job's ranks in order
//
// It does not enumerate: it builds a handful of candidates (a few times
// log2 N + 3: fewest nodes, partial nodes first, one leaf, balanced over k
// nodes; inside a node that gives part of its free GPUs, spread over its
// NICs or packed: vpcat/detail/placement_candidates.hpp says how), plans the
// job's demand on each with the subset's planner and scores it by the plan's
// expected time (Plan::expected_us()) beside the plan's lower bound
// (Plan::bound_us()). The choice: among the candidates within `slack` of the
// fastest expected time, the one that leaves the fewest partial nodes (a
// node with some GPUs free and some not), then the one on the fewest nodes,
// then the fastest. The runtime holds no simulator: `vp-catalog place`
// prints the judge's simulated time beside this choice.
//
// The demand is the job's, over its ranks (the chosen GPUs in order). Cost:
// a subset planner and a plan per candidate (40-50 ms of CPU in all for the
// 12 candidates of a 16-GPU job on the 256-GPU example of docs/subsets.md). Nothing here throws; memory comes from PodBuffer, and a Placement
// keeps its capacity between calls. One thread at a time per Placement.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "vpcat/catalog_view.hpp"
#include "vpcat/derived_patterns.hpp"
#include "vpcat/detail/placement_candidates.hpp"
#include "vpcat/planner.hpp"
#include "vpcat/planner/demand.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/status.hpp"
#include "vpcat/subset.hpp"

namespace vpcat {
inline namespace v0_1 {

// How a candidate was built. Values are stable (the C API's
// vpcat_placement.strategy).
enum class PlacementStrategy : std::uint32_t {
  fewest_nodes = 0,         // the freest nodes whole, the last by best fit
  partial_nodes_first = 1,  // the free GPUs of partial nodes, whole, then as fewest nodes
  one_leaf = 2,             // fewest nodes in one leaf (leaf/spine); detail: the leaf switch
  balanced_best_fit = 3,    // N/k GPUs on each of the k nodes that fit them best; detail: k
  balanced_freest = 4,      // N/k GPUs on each of the k freest nodes; detail: k
};

// Which GPUs a node that gives part of its free GPUs gives.
enum class PlacementPick : std::uint32_t {
  whole = 0,   // no node gives part of its free GPUs
  spread = 1,  // one GPU per NIC group (the GPUs nearest a NIC) before a second
  packed = 2,  // whole NIC groups first
};

struct PlaceOptions {
  PlanOptions plan;     // how each candidate's demand is planned
  double slack = 0.05;  // candidates within this fraction of the fastest count as fast; finite, >= 0
};

struct PlacementCandidate {
  PlacementStrategy strategy = PlacementStrategy::fewest_nodes;
  std::uint32_t detail = 0;  // one_leaf: the leaf switch; balanced_*: k; else 0
  PlacementPick pick = PlacementPick::whole;
  std::uint32_t node_count = 0;           // nodes it spans
  std::uint32_t partial_nodes_after = 0;  // partial nodes once it is taken
  double expected_us = 0;                 // the plan's expected time
  double bound_us = 0;                    // the plan's lower bound
  std::size_t first = 0;                  // its GPUs: Placement::gpus(i)
};

// "balanced over 16 nodes, freest, spread" (the strategy, then the pick when
// a node gives part of its free GPUs) into buf (NUL-terminated, truncated
// to size); the length it needs, as snprintf.
inline std::size_t describe(const PlacementCandidate& c, char* buf, std::size_t size) noexcept {
  const char* pick = c.pick == PlacementPick::spread ? ", spread" : c.pick == PlacementPick::packed ? ", packed" : "";
  int n = 0;
  switch (c.strategy) {
    case PlacementStrategy::fewest_nodes: n = std::snprintf(buf, size, "fewest nodes%s", pick); break;
    case PlacementStrategy::partial_nodes_first: n = std::snprintf(buf, size, "partial nodes first%s", pick); break;
    case PlacementStrategy::one_leaf: n = std::snprintf(buf, size, "one leaf (leaf %u)%s", c.detail, pick); break;
    case PlacementStrategy::balanced_best_fit:
    case PlacementStrategy::balanced_freest:
      n = std::snprintf(buf, size, "balanced over %u node%s, %s%s", c.detail, c.detail == 1 ? "" : "s",
                        c.strategy == PlacementStrategy::balanced_freest ? "freest" : "best fit", pick);
      break;
  }
  return n < 0 ? 0 : static_cast<std::size_t>(n);
}

// What place() found: every candidate, fastest expected first (ties in the
// order they were built), and the choice among them.
class Placement {
 public:
  Placement() noexcept = default;
  Placement(Placement&&) noexcept = default;
  Placement& operator=(Placement&&) noexcept = default;
  Placement(const Placement&) = delete;
  Placement& operator=(const Placement&) = delete;

  std::uint32_t gpu_count() const noexcept { return gpus_per_job_; }  // N
  std::size_t candidate_count() const noexcept { return candidates_.size(); }
  const PlacementCandidate& candidate(std::size_t i) const noexcept { return candidates_[i]; }  // i < count
  // Candidate i's N catalog GPU indexes, node by node, local order: the ranks.
  const std::uint64_t* gpus(std::size_t i) const noexcept { return gpus_.data() + candidates_[i].first; }
  std::size_t choice() const noexcept { return choice_; }  // index of the chosen candidate
  const PlacementCandidate& chosen() const noexcept { return candidates_[choice_]; }
  const std::uint64_t* chosen_gpus() const noexcept { return gpus(choice_); }
  std::uint32_t partial_nodes_before() const noexcept { return partial_before_; }
  std::uint64_t free_gpus_before() const noexcept { return free_before_; }
  bool empty() const noexcept { return candidates_.empty(); }

 private:
  friend PlanStatus place(const CatalogView&, const std::uint64_t*, std::size_t, std::uint32_t, const Demand&,
                          const PlaceOptions&, Placement&, DerivedPatterns*) noexcept;
  void clear() noexcept {
    candidates_.clear(), gpus_.clear(), raw_.clear();
    choice_ = 0, gpus_per_job_ = 0, partial_before_ = 0, free_before_ = 0;
  }

  detail::PodBuffer<PlacementCandidate> candidates_;
  detail::PodBuffer<std::uint64_t> gpus_;
  detail::PodBuffer<detail::RawCandidate> raw_;
  detail::PodBuffer<std::uint32_t> scratch_;
  detail::FreeSet free_;
  detail::CandidateBuilder builder_;
  Subset subset_;
  Planner planner_;
  Plan plan_;
  std::size_t choice_ = 0;
  std::uint32_t gpus_per_job_ = 0, partial_before_ = 0;
  std::uint64_t free_before_ = 0;
};

// Choose where a `gpus`-GPU job goes among the `free_count` free GPUs `free`
// (catalog-wide GPU indexes, any order) of the catalog `view`, for `demand`
// (over the job's `gpus` ranks). `out` is emptied first and left empty on
// failure. Errors: bad_subset (a free GPU the catalog lacks or listed twice,
// gpus 0 or more than are free, naming the entry or the counts),
// demand_size (a demand that is not gpus wide), bad_options (slack not
// finite or negative) and whatever planning the demand returns
// (bad_demand_value, unroutable, step_limit, out_of_memory, ...).
// `kept`, when given, holds the partial nodes' derivations of this catalog
// (vpcat/derived_patterns.hpp): the candidates' subset planners reuse them
// and keep theirs, as a scheduler calling place() again on one catalog wants
// (the C API passes its catalog handle's, Python its Catalog's).
inline PlanStatus place(const CatalogView& view, const std::uint64_t* free, std::size_t free_count, std::uint32_t gpus,
                        const Demand& demand, const PlaceOptions& options, Placement& out,
                        DerivedPatterns* kept) noexcept {
  out.clear();
  if (!(options.slack >= 0 && options.slack <= 1e300))
    return PlanStatus::at(PlanError::bad_options, "placement", "slack %g is not a finite fraction >= 0", options.slack);
  if (free == nullptr && free_count != 0)
    return PlanStatus::at(PlanError::bad_subset, "placement", "no free GPU list for %zu free GPUs", free_count);
  if (gpus == 0) return PlanStatus::at(PlanError::bad_subset, "placement", "a job of 0 GPUs");
  if (demand.gpus() != gpus) {
    const unsigned long long d = demand.gpus();
    return PlanStatus::at(PlanError::demand_size, "placement", "the demand is %llu GPUs wide, the job has %u", d, gpus);
  }
  if (PlanStatus s = out.free_.assign(view, free, free_count); !s.ok()) return s;
  if (gpus > free_count)
    return PlanStatus::at(PlanError::bad_subset, "placement", "%u GPUs asked for, %zu free", gpus, free_count);
  if (PlanStatus s = out.builder_.build(view, out.free_, gpus, out.raw_, out.gpus_); !s.ok()) {
    out.clear();
    return s;
  }
  const std::size_t count = out.raw_.size();
  if (!out.candidates_.resize(count)) {
    out.clear();
    return PlanStatus::at(PlanError::out_of_memory, "placement", "the candidates");
  }
  if (!out.scratch_.assign(out.free_.node_count(), 0)) {
    out.clear();
    return PlanStatus::at(PlanError::out_of_memory, "placement", "a count per node");
  }
  for (std::size_t i = 0; i < count; ++i) {
    const detail::RawCandidate& r = out.raw_[i];
    const std::uint64_t* g = out.gpus_.data() + r.first;
    PlacementCandidate c;
    c.strategy = static_cast<PlacementStrategy>(r.strategy);
    c.detail = r.detail;
    c.pick = static_cast<PlacementPick>(r.pick);
    c.first = r.first;
    PlanStatus s = out.subset_.assign_gpus(view, g, gpus);
    if (s.ok()) s = out.planner_.init(view, out.subset_, kept);
    if (s.ok()) s = out.planner_.plan(demand, options.plan, out.plan_);
    if (!s.ok()) {
      out.clear();
      return s;
    }
    c.node_count = out.subset_.node_count();
    c.expected_us = out.plan_.expected_us();
    c.bound_us = out.plan_.bound_us();
    c.partial_nodes_after = out.free_.partial_nodes(view, g, gpus, out.scratch_);
    out.candidates_[i] = c;
  }
  std::stable_sort(out.candidates_.begin(), out.candidates_.end(),
                   [](const PlacementCandidate& a, const PlacementCandidate& b) { return a.expected_us < b.expected_us; });
  const double fast_enough = out.candidates_[0].expected_us * (1.0 + options.slack);
  std::size_t choice = 0;
  for (std::size_t i = 1; i < count && out.candidates_[i].expected_us <= fast_enough; ++i) {
    const PlacementCandidate &a = out.candidates_[i], &b = out.candidates_[choice];
    if (a.partial_nodes_after != b.partial_nodes_after ? a.partial_nodes_after < b.partial_nodes_after
                                                       : a.node_count < b.node_count)
      choice = i;
  }
  out.choice_ = choice;
  out.gpus_per_job_ = gpus;
  out.free_before_ = free_count;
  out.partial_before_ = out.free_.partial_nodes(view, nullptr, 0, out.scratch_);
  return {};
}

// The same, deriving every partial node afresh.
inline PlanStatus place(const CatalogView& view, const std::uint64_t* free, std::size_t free_count, std::uint32_t gpus,
                        const Demand& demand, const PlaceOptions& options, Placement& out) noexcept {
  return place(view, free, free_count, gpus, demand, options, out, nullptr);
}

}  // namespace v0_1
}  // namespace vpcat
