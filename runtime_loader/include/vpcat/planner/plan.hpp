// A plan: the ordered steps of one AlltoAllv call, and the options that
// shape it.
//
// A step is a set of transfers posted together; step i is posted once step
// i-1 has finished (the MPI executor: once the rank's own transfers of step
// i-1 have). No rate is planned: each transfer runs at whatever the
// hardware gives it (NCCL and MPI sends take no rate, PCIe peer-to-peer has
// no per-flow limiter). A *channel step* (PlanStep::shared 0) is a
// contention-free channel instance (docs/design.md §3): every GPU sends at
// most one transfer and receives at most one, and with every transfer at
// its route's solo rate (PlanTransfer::solo_gbps) no directed link,
// forwarding component or NIC port is over its capacity and the fabric rule
// of the catalog holds, so the hardware never arbitrates between them. A
// *sharing step* (PlanStep::shared 1) is not: its transfers contend for
// what they share as the hardware arbitrates it, at the rates the machine
// model (machine_model.hpp) expects. By default a plan is whichever
// candidate the planner expects fastest under PlanOptions::machine
// (docs/planner.md "Plan shapes"): channel steps, channel steps ending in
// the shared step (every payload left at once, PlanStep::ports per GPU),
// the shared step alone, or shifted permutations (one-port steps, flagged
// shared where they share a NIC lane or overload a resource).
// PlanOptions::channels_only keeps the plans of channel steps only. Over
// all steps every off-diagonal byte of the demand is delivered exactly once
// per (origin, final).
//
// Times are expectations (expected_us), not promises: every step's is the
// estimator's (estimator.hpp): the start-up latency plus the longest of its
// transfers at its solo rate and its busiest resource's bytes over what that
// resource delivers under the machine model (for a channel step, the
// longest transfer at its solo rate; for the shared step, 1.03 x that).
//
// A compact plan (PlanOptions::compact) lists a step whose transfers are a
// function of the demand alone instead of its transfers: a *generated step*
// (PlanStep::shifts > 0) is shifts first .. first + shifts - 1 of the
// demand, every non-zero payload g -> (g + s) mod n of them whole on its
// default route (the nearest NIC on each side; peer-to-peer within a node):
// the shifted permutations' steps and the shared step when it holds every
// payload. Each GPU expands its own part of a step from its own send and
// receive counts (Planner::gpu_transfers, O(shifts)); Planner::expand lists
// a compact plan's every transfer (the flat plan, the same steps). Steps
// cut from the stored patterns or searched stay listed.
//
// A transfer names its route compactly (the NIC on each side, or none for an
// intra-node route); Planner::route_links() expands it to the global link
// ids of SPEC.md "Global numbering" (those of `vp-analyze topology --json`).
//
// A Plan keeps its capacity between calls (clear() does not free), so a
// Planner that fills the same Plan again allocates nothing once the Plan has
// held a plan at least as large. Plans are move-only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/machine_model.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// Which machine model a plan is made under (PlanOptions::machine). Default
// constructed: the catalog's (Planner::catalog_machine()). Built from, or
// assigned, a MachineModel: that model, whatever the catalog says.
class MachineChoice {
 public:
  MachineChoice() noexcept = default;
  MachineChoice(const MachineModel& m) noexcept : model_(m), given_(true) {}  // implicit: options.machine = m
  static MachineChoice from_catalog() noexcept { return MachineChoice(); }
  bool given() const noexcept { return given_; }             // false: the catalog's
  const MachineModel& model() const noexcept { return model_; }  // the model given (class defaults when !given())

 private:
  MachineModel model_;
  bool given_ = false;
};

struct PlanOptions {
  // Start-up latency of every transfer, microseconds, finite and >= 0. It
  // sets the step floor below and the plan's expected time.
  double latency_us = 5.0;
  // No step is cut shorter than min_step_latencies x latency_us (a step
  // whose transfers all finish sooner is shorter): payloads are cut into
  // pieces that last at least that long, which bounds the step count by
  // the demand's total time over the floor. Within that, the planner picks
  // the step length that moves the most bytes per microsecond, start-up
  // latency included (docs/planner.md). Finite, >= 0.
  double min_step_latencies = 4.0;
  // Pieces of a payload other than its last are at least this many bytes
  // (a remainder smaller than this is sent with the piece before it).
  std::uint64_t min_chunk_bytes = 0;
  // Pieces of a payload other than its last are multiples of this, >= 1.
  std::uint64_t chunk_align_bytes = 1;
  // plan() fails with step_limit when the plan would need more steps. >= 1.
  std::uint32_t max_steps = 1u << 22;
  // false (default): the plan is the candidate expected fastest under
  // `machine` (docs/planner.md "Plan shapes"), sharing steps included.
  // true: channel steps only, every step contention-free at solo rates, as
  // before this option existed (bit for bit), unless allow_shared.
  bool channels_only = false;
  // With channels_only only: the plan may end with (or be) one shared step
  // holding every payload left at once, when its expected time is the
  // shorter (the plans of --allow-shared before the default chose among
  // candidates). Without channels_only it changes nothing: the default
  // already weighs the shared step.
  bool allow_shared = false;
  // true (default): the balanced part of the demand is replayed from the
  // catalog's stored patterns, where their cycle is short enough to pay,
  // before the search plans the rest (docs/planner.md "Replay"); the first
  // balanced demand planned with it expands the patterns (milliseconds to
  // tens of milliseconds; skewed demands never do). false: every step is
  // searched.
  bool replay = true;
  // false (default): an intra-node payload takes the PCIe peer-to-peer
  // route only. true: it may take a NIC loopback instead (GPU -> NIC i ->
  // fabric switch -> NIC j -> GPU, i != j on one switch) on NIC lanes the
  // step leaves idle, where the loopback is as fast and spares the host
  // bridges or socket link the peer-to-peer route loads, or where that
  // route has no room in the step (docs/planner.md "NIC loopback").
  // Only for an executor that can force a transfer between GPUs of one
  // node onto the NICs: an MPI library or NCCL chooses its own transport
  // for ranks of one host (shared memory, peer-to-peer), and a loopback it
  // ran so would contend on the host bridges.
  bool nic_loopback = false;
  // The losses the planner expects when transfers share a resource
  // (machine_model.hpp). By default the catalog's model (its machine_model
  // section, format 1.2: Planner::catalog_machine()), and the class defaults
  // of MachineModel (the judge's calibrated table, simulator/contention.json)
  // for a catalog without one. Assigning a model overrides the catalog's:
  // `options.machine = MachineModel::ideal()` (no loss anywhere). Every
  // default plan's candidates are weighed under it.
  MachineChoice machine;
  // false (default): every step lists its transfers. true: steps that are
  // whole payloads of a set of shifts are generated steps (PlanStep::shifts;
  // see above), so a plan of n GPUs in shifted permutations or the shared
  // step holds O(steps), not O(n^2), and costs no pass to write them. The
  // steps, their expected times, ports and sharing flags are those of the
  // flat plan.
  bool compact = false;
};

inline constexpr std::uint16_t kNoNic = 0xFFFF;

// One transfer of a step: a piece of the payload (origin -> final) moving
// from src to dst (no relays in this version: src == origin, dst == final).
struct PlanTransfer {
  std::uint32_t src = 0, dst = 0;        // global GPU indexes of this hop
  std::uint32_t origin = 0, final = 0;   // the payload's first source and last destination
  std::uint64_t bytes = 0;               // > 0
  double solo_gbps = 0.0;                // the route's solo rate (its slowest link or forwarder; GB/s = 1e3 bytes/us)
  std::uint16_t src_nic = kNoNic;        // local NIC index in src's node; kNoNic (both): PCIe peer-to-peer
  std::uint16_t dst_nic = kNoNic;        // local NIC index in dst's node (src's too: a NIC loopback)
  std::uint32_t reserved = 0;
};

struct PlanStep {
  std::uint64_t first = 0;    // listed: index of its first transfer in Plan::transfers(); generated: its first shift
  std::uint32_t count = 0;    // transfers, >= 1 (a generated step's too: its shifts' non-zero payloads)
  std::uint32_t ports = 1;    // most transfers any GPU sends or receives in it (1 in every channel step)
  double expected_us = 0.0;   // expected time under the machine model (estimator.hpp)
  std::uint32_t shared = 0;   // 1: a sharing step (not a channel: its transfers contend), 0: a channel step
  std::uint32_t shifts = 0;   // 0: listed. > 0 (compact plans only): generated, shifts first .. first + shifts - 1
};

class Plan {
 public:
  Plan() noexcept = default;

  std::uint64_t gpus() const noexcept { return gpus_; }
  std::size_t step_count() const noexcept { return steps_.size(); }
  const PlanStep& step(std::size_t i) const noexcept { return steps_[i]; }  // i < step_count()
  // The transfers of a listed step i are transfers() + step(i).first,
  // step(i).count of them (nullptr for a generated step: Planner::expand).
  const PlanTransfer* transfers() const noexcept { return transfers_.data(); }
  std::size_t transfer_count() const noexcept { return transfers_.size(); }  // listed steps' only
  const PlanTransfer* step_transfers(std::size_t i) const noexcept {
    return steps_[i].shifts == 0 ? transfers_.data() + steps_[i].first : nullptr;
  }
  // Steps that are generated (PlanOptions::compact); 0: every transfer is listed.
  std::size_t generated_steps() const noexcept { return generated_; }
  // Sum of the steps' expected times.
  double expected_us() const noexcept { return expected_us_; }
  // Off-diagonal bytes of the demand, all delivered by the plan.
  std::uint64_t total_bytes() const noexcept { return total_bytes_; }
  // A lower bound on the time of any plan of the demand on the planner's
  // GPUs: the start-up latency (0 for an empty demand) plus the busiest cut
  // every byte must cross whatever the schedule: a GPU's link, a node's
  // usable NIC ports, a leaf's spine uplink (detail/bounds.hpp). The
  // planner's own cuts: the simulator's bound (vp-catalog score) adds the
  // PCIe tree's and is never lower. expected_us() / bound_us() is how far
  // from the best the plan can be at worst (under the catalog's model).
  double bound_us() const noexcept { return bound_us_; }

  // Pre-size (optional): false when memory is short.
  bool reserve(std::size_t steps, std::size_t transfers) noexcept {
    return steps_.reserve(steps) && transfers_.reserve(transfers);
  }
  void clear() noexcept {
    steps_.clear();
    transfers_.clear();
    gpus_ = 0, expected_us_ = 0.0, bound_us_ = 0.0, total_bytes_ = 0, generated_ = 0;
  }
  std::size_t step_capacity() const noexcept { return steps_.capacity(); }
  std::size_t transfer_capacity() const noexcept { return transfers_.capacity(); }

 private:
  friend class Planner;
  detail::PodBuffer<PlanStep> steps_;
  detail::PodBuffer<PlanTransfer> transfers_;
  std::uint64_t gpus_ = 0;
  double expected_us_ = 0.0;
  double bound_us_ = 0.0;
  std::uint64_t total_bytes_ = 0;
  std::size_t generated_ = 0;
};

}  // namespace v0_1
}  // namespace vpcat
