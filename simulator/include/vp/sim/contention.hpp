// The contention model of the simulator (`vp-sim --model contention`): what
// the ideal max-min model leaves out when many transfers share a PCIe or
// network resource. Off (the default, `--model ideal`), the
// simulator is exactly the ideal fluid model of simulate.hpp.
//
// Rule: the model only ever charges contention. A resource (a directed link
// or a forwarding component) is degraded only while the solo rates
// (docs/design.md §3: the smallest capacity along each route) of the
// transfers using it add up to more than its capacity, and never below what it carries in the
// ideal model at k = 1. A step that is contention-free at solo rates
// therefore runs at exactly its ideal time under every setting
// (tests/sim_contention_test.cpp). A degraded resource with k active
// transfers delivers
//
//   capacity x eta(k) x chunk_factor,   eta(k) = max(floor, 1 / (1 + slope (k - 1)))
//
// with the mechanism's (slope, floor), and chunk_factor = C / (C + o x
// capacity) where transfers are cut into chunks of C bytes that each pay o
// microseconds when chunks of several transfers interleave on it. Each
// mechanism is switchable; its parameters and their sources are in the
// committed table simulator/contention.json (schemas/contention.schema.json).
//
// Mechanisms:
//   * forwarder efficiency: a component with a forwarding capacity (a root
//     complex, a socket's inter-socket path) carrying k peer-to-peer flows,
//     with the curve of its CPU family (the first family whose `match` the
//     model of the component's socket contains), else the default curve;
//   * NIC concurrency / incast: a NIC's network links, out (q connections)
//     and in (k incoming flows);
//   * GPU endpoint, for remote reads only (`reads`): the link leaving a GPU
//     (its PCIe upstream link, data direction) carrying k concurrent
//     transfers to different peers, i.e. a GPU serving k readers at once,
//     as in p2pmark's dense all-read (docs/calibration-sources.md §7). The
//     published figures that show it are loads from peer memory; the
//     AlltoAllv executors write, and the one published write figure with
//     several peers at once (nccl-tests issue 332, server C) shows no such
//     loss, so writes do not pay it;
//   * per-chunk cost: every degraded link and forwarder.
//   * port arbitration: a link leaving a PCIe switch, a host bridge (root
//     port) or a socket shares its capacity max-min among the links its
//     transfers arrive on (the ingress ports) first, then each port's share
//     max-min among that port's transfers; elsewhere sharing is per
//     transfer. Parameter-free; it only redistributes a resource among its
//     users, so a step contention-free at solo rates is unchanged by it,
//     while a shared step may end sooner or later than under per-transfer
//     sharing. Computed as a fixed point (src/arbitration.cpp,
//     SimResult::unsettled_events).
#pragma once

#include <string>
#include <vector>

#include "vp/topology/topology.hpp"

namespace vp::sim {

struct EfficiencyCurve {
  bool on = false;
  double slope = 0.0;  // >= 0: eta(k) = 1 / (1 + slope (k - 1))
  double floor = 1.0;  // in (0, 1]: eta never below it
};

// The forwarder curve of one CPU family (its `on` is the forwarder's).
struct FamilyCurve {
  std::string match;  // a substring of the socket's model: "AMD EPYC", "Intel(R) Xeon(R)"
  double slope = 0.0, floor = 1.0;
};

struct ContentionModel {
  bool enabled = false;  // false: the ideal model, whatever the rest says
  EfficiencyCurve forwarder, nic, endpoint;
  std::vector<FamilyCurve> forwarder_families;  // first match wins; none: `forwarder` for every family
  // The traffic's transfers are remote reads by their destination (p2pmark's
  // loads), not writes by their source (every AlltoAllv executor): only
  // reads pay the endpoint curve. A property of the traffic simulated.
  bool reads = false;
  bool port_arbitration = false;
  bool chunk_on = false;
  double chunk_bytes = 524288.0;   // > 0
  double chunk_overhead_us = 0.0;  // >= 0
};

// Throws vp::UsageError naming the field when a value is out of range.
void check_contention_model(const ContentionModel& m);

// The curve `m` charges a resource of `t` (off: the resource never loses).
// A directed link: the NIC curve on a network link with a NIC at one end,
// the endpoint curve on a link leaving a GPU when m.reads, else off. A
// forwarding component: the forwarder curve of its socket's CPU family
// (the first forwarder_families entry whose match the socket's model
// contains), else m.forwarder. The simulator and the SimGrid platform
// (simgrid_platform.hpp) both take their losses from here.
EfficiencyCurve link_curve(const Topology& t, const ContentionModel& m, LinkId link);
EfficiencyCurve forwarder_curve(const Topology& t, const ContentionModel& m, ComponentId forwarder);

// The per-chunk factor C / (C + o x capacity) of a degraded resource of
// `capacity_bytes_per_us` (1 when m.chunk_on is false).
double chunk_factor(const ContentionModel& m, double capacity_bytes_per_us);

}  // namespace vp::sim
