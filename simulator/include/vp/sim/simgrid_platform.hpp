// A SimGrid platform (XML, DTD version 4.1) of a simulated machine, so that
// SimGrid's SMPI can run real MPI code -- the MPI executor, MPI_Alltoallv's
// own algorithms -- on the machine vp-sim judges (docs/smpi.md).
//
// What is written, for a Topology (catalog_topology.hpp):
// * one host per GPU, in global GPU order, named NODE.gpuL (node name, the
//   GPU's local index), with the property vp_gpu = its global index;
// * one SHARED link per directed link of the topology, `l<id>`, at the
//   link's capacity, and one SHARED link per forwarding component (root
//   complex, socket), `f<id>`, at its forwarding capacity: SimGrid shares a
//   link max-min among the flows crossing it, as vp-sim shares a resource;
// * per GPU a FATPIPE link `lat<g>` carrying the start-up latency
//   (`latency_us`, vp-sim's --latency-us), the only link with a latency,
//   first on every route from that GPU: each message pays it once, as each
//   transfer of vp-sim does;
// * a Full zone with one route per ordered GPU pair: the route vp-sim gives
//   the baselines' transfers (fan-out, SpreadOut: the PCIe tree, on each
//   side the nearest NIC with GPUDirect RDMA, the fabric; routes.hpp
//   default_route where every NIC has GPUDirect RDMA), which is also the
//   one route MPI has for the pair.
//
// Calibrated (a ContentionModel enabled): every resource the model can
// degrade (contention.hpp link_curve / forwarder_curve: forwarders, NIC
// network links, GPU up-links for reads) carries properties that the
// platform library smpi/vp_simgrid_platform.cpp turns into SimGrid's
// NONLINEAR sharing policy: vp_slope, vp_floor, vp_chunk_factor and
// vp_solo_max_Bps, the largest solo rate of a route through it. SimGrid's
// callback sees only the capacity and the number k of flows, not their solo
// rates, so the condition "the flows' solo rates add up to more than the
// capacity" becomes k x vp_solo_max_Bps > capacity (exact where every route
// through the resource has the same solo rate, as on the suite's PCIe
// trees). What XML cannot say and the callback cannot see: port
// arbitration (two-level sharing by ingress port) and the transfer type
// (reads against writes: fixed at generation, from ContentionModel::reads).
#pragma once

#include <string>

#include "vp/sim/contention.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

struct SimgridPlatformOptions {
  double latency_us = 5.0;                 // per message, >= 0
  const ContentionModel* model = nullptr;  // null or disabled: ideal (no vp_* properties)
};

// The platform's XML text. Throws vp::UsageError when latency_us is
// negative or not finite, or the topology has fewer than two GPUs.
std::string simgrid_platform_xml(const Topology& t, const SimgridPlatformOptions& options);

}  // namespace vp::sim
