// vp-analyze topology --svg / --dot: one node's PCIe tree (sockets, host
// bridges, PCIe switches, GPUs, NICs) with the capacity of every link and
// forwarding component, each component filled with the colour of its
// automorphism orbit (NodeSymmetry::component_orbit), and a legend. For a
// cluster the caller passes one node type's topology and says in `notes`
// how many nodes there are and what the fabric is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/topology/topology.hpp"

namespace vp::render {

struct TopologyPicture {
  const Topology* node = nullptr;           // a single node (nodes.size() == 1)
  // Per component id: the smallest component id of its orbit; empty when
  // the orbits are not known (then every component is its own orbit).
  std::vector<std::uint32_t> component_orbit;
  std::string title;                        // input text allowed (escaped)
  std::vector<std::string> notes;           // lines under the title
};

// Classes: "component" (one box per component) plus its kind ("gpu", "nic",
// "pcie_switch", "host_bridge", "cpu"), "link" (one line per physical link),
// "orbit" (one legend entry per orbit).
std::string topology_svg(const TopologyPicture& p);

// An undirected graph: one node per component, one edge per physical link
// (both directions, labelled "a GB/s", or "a / b GB/s" when they differ).
std::string topology_dot(const TopologyPicture& p);

}  // namespace vp::render
