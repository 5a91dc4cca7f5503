// Measured capacities: GPU-to-GPU rates operators already take on a node,
// read as capacity overrides with source `measured` (docs/importers.md
// "Measured capacities").
//
// Two formats are read:
//  * `nvbandwidth --json` (NVIDIA/nvbandwidth): the device-to-device memcpy
//    testcases' `bandwidth_matrix` (GB/s), and the "GPU Device list" for the
//    devices' PCI bus ids;
//  * the text of CUDA samples' `p2pBandwidthLatencyTest`: its
//    "Unidirectional P2P=Enabled Bandwidth" matrices (writes: row -> column;
//    reads: column -> row; the bidirectional one, halved, when no
//    unidirectional one is there), and its "Device: N, NAME, pciBusID: ..."
//    lines.
//
// A pair's figure is the solo rate of the route between the two GPUs. How it
// becomes capacities (apply_measurements):
//  1. The GPUs of the measurement are matched to the topology's GPUs by PCI
//     bus id when both have them, otherwise device i is GPU i (the topology's
//     GPUs are in bus-id order: CUDA's order under CUDA_DEVICE_ORDER=PCI_BUS_ID).
//  2. Pairs in one orbit of the node's symmetry (ordered GPU pairs mapped onto
//     each other by an automorphism) take the mean of their measurements, and
//     a pair of the orbit that was not measured takes it too, so that noise
//     does not break the symmetry; an orbit whose pairs differ by more than
//     kMeasuredDisagreement is reported with the lowest and the highest pair.
//  3. The route of every pair with a figure has a *carrier*, the element where
//     it turns: the links of the route below and above its PCIe switch (PIX,
//     PXB), the forwarding capacity of its host bridge (PHB) or CPU socket
//     (NODE), the inter-socket link(s) it crosses (SYS). A carrier takes the
//     highest figure of the routes it carries (a capacity is never lower than
//     a rate measured through it); every other element of a measured route is
//     raised to the highest figure through it when it is below, never lowered.
//     So each route's solo rate equals its figure, unless a faster measurement
//     shares its carrier: that pair is reported with both figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/topology/topology.hpp"

namespace vp {

// Relative spread above which pairs of one orbit are reported (5%).
inline constexpr double kMeasuredDisagreement = 0.05;

struct MeasuredDevice {
  int index = 0;           // CUDA device ordinal in the measurement
  std::string name;        // "NVIDIA GeForce RTX 4090"; may be empty
  std::string pci_bus_id;  // "0000:17:00.0" (function 0 assumed); empty if not printed
  int line = 0;            // where the file lists it (0: not listed)
};

struct PairMeasurement {
  int src = 0, dst = 0;  // device ordinals: the data flows src -> dst
  double gbps = 0.0;
  int line = 0;          // the line of the matrix row in the file
};

struct Measurement {
  std::string file;      // as given on the command line (error messages)
  std::string name;      // its base name (warnings, bases: the same catalog wherever the file lies)
  std::string format;    // "nvbandwidth" or "p2pBandwidthLatencyTest"
  std::string matrix;    // the testcase / matrix the figures come from
  int device_count = 0;  // the matrix's size
  std::vector<MeasuredDevice> devices;  // empty when the file lists none
  std::vector<PairMeasurement> pairs;   // off-diagonal cells with a figure
  std::vector<std::string> notes;       // what was read and what was ignored
};

// Read a measurement file, detecting its format. Throws InputError
// "file:line: reason" for an unreadable, unknown or malformed file.
Measurement read_measurement(const std::string& path);
// The same on text already read; `file` names it in messages.
Measurement parse_measurement(const std::string& file, const std::string& text);

// Device i of `m` -> index into t.gpus (see the header comment, step 1).
// Throws InputError when a device's bus id is no GPU of `t`, or when without
// bus ids the counts differ.
std::vector<std::size_t> map_measured_devices(const Topology& t, const Measurement& m, std::string* assumption);

// Apply measurements to a single-node topology (see the header comment).
// `pair_orbit`, when not empty, holds an orbit id per ordered GPU pair
// (i * gpus + j, indexes into t.gpus); empty = every pair its own orbit.
// Returns the warnings (also appended to t.warnings, so that they reach the
// catalog's provenance).
std::vector<std::string> apply_measurements(Topology& t, const std::vector<Measurement>& ms,
                                            const std::vector<std::uint32_t>& pair_orbit);

}  // namespace vp
