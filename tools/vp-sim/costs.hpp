// The costs a scheduler pays around its transfers in a real stack, charged
// by vp-sim beside the simulated schedule (docs/simulator.md "Costs beside
// the transfer"): the exchange of send counts it needs before it can plan,
// and its planning time (measured, or a stated budget).
#pragma once

#include <string>

#include "vp/sim/schedule.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim_cli {

// What a scheduler exchanges before its transfers start.
enum class CountsExchange {
  // Nothing: every rank already knows what it sends and receives
  // (MPI_Alltoallv's recvcounts come from the caller; NCCL's grouped
  // ncclSend/ncclRecv take both counts from the caller), or the schedule
  // follows from the rank numbering alone (SpreadOut).
  none,
  // The whole n x n matrix on every rank: an allgather of each rank's row
  // of n 8-byte counts (VarioPath: docs/mpi.md "Counts exchange"; FAST, a
  // centralized scheduler that decomposes the whole matrix).
  allgather,
  // Each rank tells every other rank how much it sends it: one 4-byte
  // count per ordered pair (DeepEP's notify_dispatch writes
  // num_tokens_per_rank[j] into rank j's buffer between two barriers).
  alltoall,
};

// kSchedulers' names; vp::InternalError for another name.
CountsExchange counts_exchange(const std::string& scheduler);

// Whether the scheduler plans per call from the demand (charged a planning
// time): variopath (Planner::plan) and fast (its Birkhoff decomposition).
// The others' schedules follow from counts each rank holds.
bool plans_online(const std::string& scheduler);

// The exchange as a schedule over the topology's GPUs (default routes):
// allgather: Bruck's algorithm, ceil(log2 n) steps; in step k rank r sends
// the min(2^k, n - 2^k) rows it holds (8n bytes each) to rank r - 2^k mod n.
// alltoall: one step, 4 bytes from every rank to every other. none: no step.
sim::Schedule counts_exchange_schedule(const Topology& t, CountsExchange e);

// Its simulated time (each step one start-up, opts.latency_us, plus its
// bytes at the topology's rates); 0 for none or a single GPU.
double counts_exchange_us(const Topology& t, CountsExchange e, const sim::SimOptions& opts);

// --planning-us: "measured" (the default) or a budget in microseconds
// charged to every scheduler that plans online instead of its measurement.
struct PlanningCharge {
  bool measured = true;
  double budget_us = 0.0;
  std::string text() const;
};
// Throws vp::UsageError for anything but "measured" or a finite number >= 0.
PlanningCharge parse_planning_charge(const std::string& spec);

}  // namespace vp::sim_cli
