// The fluid engine behind simulate(): one step's transfers sharing resources
// max-min fairly, event by event, until all have finished. Internal.
//
// Rates are kept max-min fair incrementally. Every transfer records its
// bottleneck: the resource that froze it in the progressive filling that
// last set its rate (saturated, and no transfer on it is faster). When a set
// C of transfers finishes, only a *region* is recomputed: the transfers
// bottlenecked at a resource of C, then, transitively, those bottlenecked at
// a resource of a transfer already in the region. Everything outside keeps
// its rate: its bottleneck carries no region transfer, so its load is
// unchanged and it stays a valid bottleneck. The region is re-filled
// progressively with the outside loads fixed; if a resource that froze
// region transfers carries an outside transfer faster than them, that
// transfer joins the region and the fill is redone. The result satisfies the
// bottleneck characterisation of max-min fairness (every transfer crosses a
// saturated resource on which none is faster), which determines the
// allocation uniquely: it equals a full recomputation while touching only
// transfers whose rates can change. Cost per event: the region's transfers
// times their route lengths (tests compare it with a from-scratch reference).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vp::sim::detail {

// How contention degrades one resource (the contention model of
// contention.hpp): while the solo rates of its active transfers add up to
// more than its capacity, it delivers capacity x max(floor, 1 / (1 +
// slope x (k - 1))) x chunk_factor for k active transfers; otherwise its
// full capacity. slope >= 0, floor and chunk_factor in (0, 1], so the
// capacity only grows as transfers finish.
struct Degradation {
  double slope = 0.0, floor = 1.0, chunk_factor = 1.0;
};

struct FluidProblem {
  std::vector<double> capacity;  // per resource, bytes per microsecond (> 0)
  // Per resource, or empty: the ideal model (capacities fixed).
  std::vector<Degradation> degradation;
  // Transfer i uses resources resources[first[i] .. first[i+1]), no repeats.
  std::vector<std::uint32_t> first{0};
  std::vector<std::uint32_t> resources;
  std::vector<double> bytes;  // per transfer, > 0

  std::size_t transfers() const { return bytes.size(); }
  void add_transfer(double b, const std::vector<std::uint32_t>& res) {
    bytes.push_back(b);
    resources.insert(resources.end(), res.begin(), res.end());
    first.push_back(static_cast<std::uint32_t>(resources.size()));
  }
};

struct FluidOutcome {
  double makespan_us = 0.0;  // when the last transfer finished
  std::size_t events = 0;    // rate computations, the initial one included
};

// Run to completion. `epsilon`: the relative completion batching window
// (see SimOptions in simulate.hpp).
FluidOutcome run_fluid(const FluidProblem& p, double epsilon);

}  // namespace vp::sim::detail
