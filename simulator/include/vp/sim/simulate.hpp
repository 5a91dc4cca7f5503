// The flow-level simulator (docs/design.md §7): the judge of schedule quality.
//
// Model. Within a step, flows with the same hop endpoints and the same
// route form one transfer (one connection) carrying the sum of their bytes.
// Every transfer, once posted, first waits the start-up latency, then moves
// its bytes as a fluid. Steps follow one another per SimOptions::sync:
//   * rank (default), as the MPI executor runs a plan (mpi/src/exec.cpp):
//     each rank posts a step's sends and receives, waits for all of them,
//     then moves to its next step; a step in which it has nothing to move
//     it passes through. A transfer of step s is posted at
//     max(ready_src(s), ready_dst(s)), ready_r(s) being when rank r
//     finished all its own transfers (sent and received) of earlier steps
//     (0 at the start). Transfers of different steps overlap and share the
//     resources under the same rates; starts are events like completions.
//     With SimOptions::eager, a small message (a pair's bytes in a step
//     below eager_bytes) does not hold its sender: the sender's step ends
//     without waiting for its delivery (the receiver still waits for it);
//     `detached` moves it once both ranks are at its step, as SMPI's
//     detached sends, `eager` as soon as the sender is, as an eager
//     protocol whose receiver buffers what arrives early.
//   * barrier: each step runs on its own, after the previous one has
//     finished everywhere (eager sends change nothing). Resources are the directed links (capacity in GB/s) and the
// components with a forwarding capacity (a cap on the sum of the rates of
// the transfers whose route transits them, listed as forwarders or not).
// Rates are max-min fair (progressive filling) and are recomputed whenever
// transfers start or finish.
// Barrier: a step's time is the latency plus the time its last transfer
// finishes; a step without flows takes no time. Rank: see SimResult.
//
// Units: bytes; GB/s = 1e9 bytes/s = 1e3 bytes/us; time in microseconds.
//
// Precision. Rates are exactly max-min fair between events (recomputed
// incrementally, see src/fluid.hpp). Completions are batched: when the first
// running transfer completes, t1 after it started (barrier: the elapsed
// step time), every transfer predicted to complete within (1 +
// completion_epsilon) t1 of that start completes with it, at the last of
// their predicted times t2 (never past the next start of a transfer), and
// rates are left unchanged until t2 (a transfer done before t2 keeps its
// share idle until then). This is
// the exact simulation of a demand in which each batched transfer carries at
// most rate x epsilon x t1 extra (idle) bytes, so the result is always a
// feasible execution, never below the lower bound. Measured on the 256-GPU
// Zipf fan-out (docs/simulator.md): epsilon 1e-4 changes the time by
// +1.2e-4 relative and cuts the events by two thirds; 0 is exact.
#pragma once

#include <cstddef>
#include <vector>

#include "vp/sim/contention.hpp"
#include "vp/sim/demand.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

// How the steps follow one another (see the model above).
enum class SyncMode {
  rank,     // each rank moves on when its own transfers are done (the executor)
  barrier,  // a step starts when the previous one has finished everywhere
};

// Small messages under rank synchronisation (see the model above).
enum class EagerMode {
  off,       // every send waits for its delivery (a rendezvous protocol)
  detached,  // below eager_bytes: the sender goes on; the message moves once both ranks are at its step
  eager,     // below eager_bytes: the sender goes on; the message moves at once
};

struct SimOptions {
  double latency_us = 5.0;           // start-up latency of every transfer, >= 0
  double completion_epsilon = 1e-4;  // relative batching window, in [0, 1e-2]
  ContentionModel contention;        // off by default: the ideal model (contention.hpp)
  SyncMode sync = SyncMode::rank;
  EagerMode eager = EagerMode::off;  // rank sync only
  // The eager limit: a pair's bytes in a step strictly below it are one
  // small message. 65536 is SMPI's smpi/send-is-detached-thresh default.
  double eager_bytes = 65536.0;
};

struct SimResult {
  // The makespan: when the last transfer finished (barrier: the sum of the
  // step times).
  double time_us = 0.0;
  // One per step of the schedule. Barrier: the step's time. Rank: the span
  // from the step's first post (its first transfer's start less the
  // latency) to its last transfer's completion; steps overlap, so these do
  // not add up to time_us. 0 for a step without bytes to move (rank) or
  // without flows (barrier).
  std::vector<double> step_us;
  // Bytes handed to their final destination, per (origin, final) in GPU
  // index order: the bytes of every flow whose dst is its final.
  Demand delivered;
  // Per GPU index: when the last of the bytes delivered to it (flows whose
  // dst is their final) arrived, from the schedule's start, latency
  // included; 0 for a GPU that receives none. A per-receiver rate
  // (delivered bytes / arrival) is what benchmarks that time each reader on
  // its own clock report (p2pmark).
  std::vector<double> arrival_us;
  // Per GPU index: when the last transfer it sends or receives finished,
  // from the schedule's start (0 for a GPU without any).
  std::vector<double> rank_finish_us;
  std::size_t transfers = 0;    // after merging, over all steps
  std::size_t events = 0;       // rate computations, over all steps
  // Port arbitration (contention model): events whose port shares had not
  // settled within the round limit, so that their rates, though feasible,
  // are not exactly port-fair (src/arbitration.cpp). 0 otherwise.
  std::size_t unsettled_events = 0;
};

// Simulate `schedule` on `t`. Throws vp::InternalError (schedules are ours:
// a malformed one is a scheduler's bug) naming the step and flow when a
// flow is malformed: endpoints or origin/final that are not
// GPUs of t, negative or non-finite bytes, a route that does not lead from
// src to dst through existing links or crosses a link twice, or a listed
// forwarder without a forwarding capacity; vp::UsageError when the options
// are out of range.
SimResult simulate(const Topology& t, const Schedule& schedule, const SimOptions& opts = {});

}  // namespace vp::sim
