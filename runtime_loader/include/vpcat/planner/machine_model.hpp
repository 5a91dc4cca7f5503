// The machine model the planner expects a plan's time under (docs/planner.md
// "Machine model"): what a resource loses when several transfers share it.
// The start-up cost of a transfer is PlanOptions::latency_us; the loss
// curves are the judge's (vp-sim --model contention, simulator/contention.hpp)
// and their class defaults are the values of the committed calibrated table
// simulator/contention.json, each with its source below.
//
// A resource whose transfers' solo rates add up to more than its capacity
// (and only such a resource: a contention-free step loses nothing) delivers
//
//   capacity x eta(k) x chunk_factor,   eta(k) = max(floor, 1 / (1 + slope (k - 1)))
//
// with k the transfers on it, the curve of its mechanism, and
// chunk_factor = C / (C + o x capacity) (chunks of C bytes, o microseconds
// each when the chunks of several transfers interleave). Mechanisms:
//   * forwarder: a component with a forwarding capacity (root complex,
//     inter-socket path), with the curve of the first family whose `match`
//     its socket's CPU model contains, else `forwarder`;
//   * nic: a NIC's network lanes, both directions;
//   * every other tracked resource (PCIe links) loses only the chunk factor.
// The GPU endpoint curve of the table is for remote reads; executors write
// (plan.hpp), so the planner has none.
//
// Plain data, no allocation: a PlanOptions member, copied freely.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

struct LossCurve {
  bool on = false;     // false: no loss (eta = 1)
  double slope = 0.0;  // finite, >= 0
  double floor = 1.0;  // in (0, 1]
  double eta(std::uint32_t k) const noexcept {
    if (!on || k < 2) return 1.0;
    const double e = 1.0 / (1.0 + slope * static_cast<double>(k - 1));
    return e > floor ? e : floor;
  }
};

// The forwarder curve of one CPU family: `match` (NUL-terminated) is a
// substring of the socket's model ("AMD EPYC"). Its `on` is ignored: the
// family curves follow MachineModel::forwarder.on.
struct ForwarderFamily {
  static constexpr std::size_t kMatchBytes = 48;
  char match[kMatchBytes] = {};
  LossCurve curve;
  std::string_view match_view() const noexcept { return std::string_view(match, strnlen(match, kMatchBytes)); }
};

struct MachineModel {
  static constexpr std::uint32_t kMaxFamilies = 8;

  // simulator/contention.json "forwarder": slope fitted on the AMD EPYC
  // (Zen 5) figures and taken by every other family; floor 0.11 "no
  // published figure: swept".
  LossCurve forwarder{true, 0.036, 0.11};
  // simulator/contention.json "forwarder.families": AMD EPYC, slope 0.036
  // fitted (scripts/calibrate.py --fit on voipmonitor/rtx6kpro's dense
  // all-read and the dual-Turin +4 probe), floor 0.11 swept.
  ForwarderFamily families[kMaxFamilies] = {{"AMD EPYC", {true, 0.036, 0.11}}};
  std::uint32_t family_count = 1;
  // simulator/contention.json "nic": slope 0.004 bounded by DeepEP's
  // PCIe-mode figures (deepseek-ai/DeepEP docs/README_PCIe.md), floor 0.5
  // "no published figure: swept".
  LossCurve nic{true, 0.004, 0.5};
  // simulator/contention.json "chunk": 131072 bytes (NVIDIA/nccl
  // src/init.cc P2pNetChunkSize / P2pPciChunkSize), 0.1 us per chunk "no
  // published figure: swept" (bounded by the PEX88096 calibration).
  bool chunk_on = true;
  double chunk_bytes = 131072.0;
  double chunk_overhead_us = 0.1;

  // Every loss off: the judge's ideal model (max-min fair sharing).
  static MachineModel ideal() noexcept {
    MachineModel m;
    m.forwarder.on = false;
    m.family_count = 0;
    m.nic.on = false;
    m.chunk_on = false;
    return m;
  }

  // The forwarder curve for a socket whose CPU model is `cpu`.
  LossCurve forwarder_curve(std::string_view cpu) const noexcept {
    const std::uint32_t n = family_count < kMaxFamilies ? family_count : kMaxFamilies;
    for (std::uint32_t f = 0; f < n; ++f) {
      const std::string_view m = families[f].match_view();
      if (!m.empty() && cpu.find(m) != std::string_view::npos)
        return LossCurve{forwarder.on, families[f].curve.slope, families[f].curve.floor};
    }
    return forwarder;
  }
  // The chunk factor of a resource of `capacity_gbps` (1 when off).
  double chunk_factor(double capacity_gbps) const noexcept {
    if (!chunk_on) return 1.0;
    return chunk_bytes / (chunk_bytes + chunk_overhead_us * capacity_gbps * 1e3);
  }

  // nullptr when the model is valid; otherwise the offending field's name
  // (for PlanStatus): finite slopes >= 0, floors in (0, 1], at most
  // kMaxFamilies families each with a NUL-terminated match, chunk_bytes >
  // 0 and overhead >= 0, both finite.
  const char* invalid_field() const noexcept {
    auto bad = [](const LossCurve& c) {
      return !(c.slope >= 0) || !std::isfinite(c.slope) || !(c.floor > 0) || !(c.floor <= 1);
    };
    if (bad(forwarder)) return "options.machine.forwarder";
    if (bad(nic)) return "options.machine.nic";
    if (family_count > kMaxFamilies) return "options.machine.family_count";
    for (std::uint32_t f = 0; f < family_count; ++f) {
      if (bad(families[f].curve)) return "options.machine.families[].curve";
      if (families[f].match[ForwarderFamily::kMatchBytes - 1] != '\0') return "options.machine.families[].match";
    }
    if (!(chunk_bytes > 0) || !std::isfinite(chunk_bytes)) return "options.machine.chunk_bytes";
    if (!(chunk_overhead_us >= 0) || !std::isfinite(chunk_overhead_us)) return "options.machine.chunk_overhead_us";
    return nullptr;
  }
};

}  // namespace v0_1
}  // namespace vpcat
