// The fluid engine behind simulate(): transfers sharing resources max-min
// fairly, event by event (starts and completions), until all have finished:
// one step's transfers all starting together, or a whole schedule's, each
// starting when its ranks are ready (Starts). Internal.
//
// Rates are kept max-min fair incrementally. Every transfer records its
// bottleneck: the resource that froze it in the progressive filling that
// last set its rate (saturated, and no transfer on it is faster). When a set
// C of transfers finishes (or starts), only a *region* is recomputed: the
// transfers of C that start, those bottlenecked at a resource of C, then,
// transitively, those bottlenecked at a resource of a transfer already in
// the region. Everything outside keeps
// its rate: its bottleneck carries no region transfer, so its load is
// unchanged and it stays a valid bottleneck. The region is re-filled
// progressively with the outside loads fixed (a start only lowers the
// levels of the resources it crosses, all in the region); if a resource that froze
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

// Relative slack when comparing rates: far above the rounding of sums of a
// few thousand rates, far below any real difference.
inline constexpr double kRateTolerance = 1e-9;

// What a resource of `capacity` delivers under `g` to `count` active
// transfers whose solo rates add up to `solo_sum`: its full capacity while
// they fit (contention-free at solo rates), else the degraded one.
inline double degraded_capacity(double capacity, const Degradation& g, std::uint32_t count, double solo_sum) {
  if (count < 2 || solo_sum <= capacity * (1.0 + kRateTolerance)) return capacity;
  const double slope_term = 1.0 / (1.0 + g.slope * static_cast<double>(count - 1));
  return capacity * (slope_term > g.floor ? slope_term : g.floor) * g.chunk_factor;
}

// Port arbitration (contention.hpp): no port.
inline constexpr std::uint32_t kNoPort = 0xFFFFFFFFu;

struct FluidProblem {
  std::vector<double> capacity;  // per resource, bytes per microsecond (> 0)
  // Per resource, or empty: the ideal model (capacities fixed).
  std::vector<Degradation> degradation;
  // Transfer i uses resources resources[first[i] .. first[i+1]), no repeats.
  std::vector<std::uint32_t> first{0};
  std::vector<std::uint32_t> resources;
  std::vector<double> bytes;  // per transfer, > 0
  // Port arbitration, or empty (per-flow sharing everywhere): per entry of
  // `resources`, the ingress port through which the transfer reaches that
  // resource (any number that tells the ports of one resource apart: the
  // resource of the link it arrived on), or kNoPort where the resource
  // shares per flow. A resource with ports shares its capacity max-min
  // among its ports first, then each port's share max-min among the port's
  // transfers (run_fluid_arbitrated).
  std::vector<std::uint32_t> port;

  std::size_t transfers() const { return bytes.size(); }
  void add_transfer(double b, const std::vector<std::uint32_t>& res) {
    bytes.push_back(b);
    resources.insert(resources.end(), res.begin(), res.end());
    first.push_back(static_cast<std::uint32_t>(resources.size()));
  }
  // The same, with the ingress port of each resource (kNoPort: none).
  void add_transfer(double b, const std::vector<std::uint32_t>& res, const std::vector<std::uint32_t>& ports) {
    port.insert(port.end(), ports.begin(), ports.end());
    add_transfer(b, res);
  }
};

struct FluidOutcome {
  double makespan_us = 0.0;  // when the last transfer finished
  std::vector<double> finish_us;  // per transfer: when it finished (its batch's end)
  std::size_t events = 0;    // rate computations, the initial one included
  // Port arbitration: progressive fillings over all events, and the events
  // whose port shares had not settled within the round limit (their rates
  // are feasible but not exactly port-fair).
  std::size_t fillings = 0, unsettled = 0;
};

// Transfers that start over time (the rank-synchronised simulation of
// simulate.hpp): the engine asks for the first starts, and, whenever a batch
// of transfers finishes, for the starts it allows. A transfer is started at
// most once; one never started never runs (the outcome then leaves it at 0).
struct Start {
  double at;  // >= the time it is announced
  std::uint32_t transfer;
};
class Starts {
 public:
  virtual ~Starts() = default;
  virtual void first(std::vector<Start>& out) = 0;
  // Transfers `done` finished at `now`: append the starts that follow.
  virtual void finished(const std::vector<std::uint32_t>& done, double now, std::vector<Start>& out) = 0;
};

// Run to completion, every transfer starting at 0. `epsilon`: the relative
// completion batching window (see SimOptions in simulate.hpp): when the
// first running transfer would finish at t1, having started at t0, every
// transfer predicted to finish by t0 + (1 + epsilon)(t1 - t0) finishes with
// it (never past the next start). p.port must be empty.
FluidOutcome run_fluid(const FluidProblem& p, double epsilon);
// The same, the transfers starting when `starts` says: a start is an event
// like a completion (the region of the new transfer is re-filled).
FluidOutcome run_fluid(const FluidProblem& p, double epsilon, Starts& starts);

// The same with port arbitration (p.port not empty), recomputed from
// scratch at every event (src/arbitration.cpp). Without ports it gives
// run_fluid()'s allocation (up to rounding), at a higher cost.
FluidOutcome run_fluid_arbitrated(const FluidProblem& p, double epsilon);
FluidOutcome run_fluid_arbitrated(const FluidProblem& p, double epsilon, Starts& starts);

// The rates (bytes per microsecond, per transfer) of its first event, before
// any transfer finishes, and whether its port shares settled: what tests
// check the two-level sharing on.
struct ArbitratedRates {
  std::vector<double> rate;
  bool settled = false;
};
ArbitratedRates arbitrated_rates(const FluidProblem& p);

}  // namespace vp::sim::detail
