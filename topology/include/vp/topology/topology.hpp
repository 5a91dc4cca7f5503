// The topology model (docs/design.md §2).
//
// A Topology is a directed graph of components (GPUs, NICs, PCIe switches,
// host bridges, CPU sockets, network switches) joined by full-duplex links,
// each stored as two directed Links with a capacity in GB/s. Components that
// forward peer-to-peer traffic (host bridges, CPU sockets) may carry a
// forwarding capacity. One Topology describes either a single node (what the
// importers return) or a whole cluster (node types expanded, plus the fabric).
//
// Inside a node the PCIe hierarchy is a forest: every gpu, nic, pcie_switch
// and host_bridge has a `parent` (the next component towards the CPU); every
// host_bridge's parent is a cpu; cpus have no parent and are joined by
// inter-socket links. NICs additionally have a network link to a net_switch
// when the topology covers a cluster.
//
// Ids are indices: components[i].id == i, links[i].id == i. After
// canonicalize() the order is canonical (independent of the order in which the
// input listed devices), so ids are stable for identical hardware.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vp/topology/capacity.hpp"
#include "vpcat/format.hpp"

namespace vp {

using ComponentId = std::uint32_t;
using LinkId = std::uint32_t;
inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// The deepest PCIe tree a catalog holds: parent steps from a component to its
// socket (the runtime verifier's default max_tree_depth). finalize() refuses
// deeper trees as bad input, before the writer would.
inline constexpr std::uint32_t kMaxTreeDepth = 32;

// The kinds are the runtime's (vpcat/format.hpp), the one set of the project
// (vp::catalog::Kind is the same type), with their names and parsers.
// Order matters: it is the canonical ordering of kinds.
using ComponentKind = vpcat::ComponentKind;  // cpu, host_bridge, pcie_switch, gpu, nic, net_switch
inline constexpr int kComponentKinds = 6;
using LinkKind = vpcat::LinkKind;  // pcie, inter_socket, network
using vpcat::parse_component_kind;
using vpcat::parse_link_kind;
using vpcat::to_string;  // "cpu", "pcie", "leaf_spine", ...

struct Component {
  ComponentId id = kNone;
  ComponentKind kind = ComponentKind::gpu;
  // Short label unique within its node (or within the fabric): "gpu3",
  // "pcie_switch1", "cpu0", "rail2". canonicalize() assigns it.
  std::string name;
  // Node index into Topology::nodes; -1 for fabric components (net_switch).
  std::int32_t node = -1;
  // Next component towards the CPU (PCIe tree); kNone for cpu and net_switch.
  ComponentId parent = kNone;
  // Index among the components of the same kind in the same node, in
  // canonical order (GPU 0..7 of a node, socket 0..1, ...). For net_switch:
  // index among the fabric's switches.
  std::int32_t local_index = -1;

  std::string model;       // "NVIDIA A10", "ConnectX-7", "PEX88096", "AMD EPYC 9654"
  std::string pci_bus_id;  // "0000:17:00.0" (lower-case hex); empty if none/unknown
  std::string device_name; // OS device: "cuda0", "mlx5_0", "rsmi3"; empty if unknown
  std::uint16_t pci_vendor = 0, pci_device = 0;  // 0 = unknown
  std::uint32_t pci_class = 0;                   // 24-bit class code, 0 = unknown

  // Forwarding capacity for traffic that transits this component (host_bridge,
  // cpu). Absent = not a bottleneck (PCIe switches are non-blocking).
  std::optional<Capacity> forward;

  // nic only
  double line_rate_gbitps = 0.0;  // per port
  std::uint32_t ports = 0;
  bool gpudirect = false;  // GPUDirect RDMA capable

  // cpu only: the inter_socket family key ("amd", "intel_skylake", ...).
  std::string cpu_family;
  // net_switch only: "switch", "rail", "leaf", "spine".
  std::string role;

  friend bool operator==(const Component&, const Component&) = default;
};

struct Link {
  LinkId id = kNone;
  ComponentId src = kNone, dst = kNone;
  LinkKind kind = LinkKind::pcie;
  Capacity capacity;
  LinkId reverse = kNone;  // the opposite direction of the same physical link
  // PCIe facts when known (0 = unknown); informative, the capacity decides.
  int pcie_gen = 0, pcie_width = 0;

  friend bool operator==(const Link&, const Link&) = default;
};

struct NodeInfo {
  std::string name;  // host name, e.g. "gpu001"; "node0" when none is given
  std::string type;  // node type name, e.g. "pcie-gen4-2s4sw8g4n"

  friend bool operator==(const NodeInfo&, const NodeInfo&) = default;
};

using FabricKind = vpcat::FabricKind;  // none, single_switch, rail, leaf_spine (vpcat/format.hpp)
using vpcat::parse_fabric_kind;

// The fabric as described; the switches and links it implies are components
// and links of the Topology (see cluster.hpp, expand_cluster()).
struct FabricInfo {
  FabricKind kind = FabricKind::none;
  std::uint32_t leaf_size = 0;      // leaf_spine: nodes per leaf
  double oversubscription = 1.0;    // leaf_spine: downlink / uplink capacity
  friend bool operator==(const FabricInfo&, const FabricInfo&) = default;
};

struct Topology {
  std::vector<Component> components;
  std::vector<Link> links;
  std::vector<NodeInfo> nodes;  // at least one
  FabricInfo fabric;
  CapacityDefaults defaults;    // the table the capacities were derived with
  std::vector<std::string> warnings;  // non-fatal findings of the importer

  // ---- derived by finalize(); not part of equality ---------------------------
  std::vector<ComponentId> gpus;      // global GPU index -> component (node, local_index order)
  std::vector<ComponentId> nics, switches, sockets, host_bridges, net_switches;
  std::vector<std::vector<LinkId>> out_links, in_links;  // per component
  std::vector<std::vector<ComponentId>> children;        // PCIe-tree children per component

  // Adds a component; returns its id. The caller fills the fields.
  ComponentId add_component(ComponentKind kind, std::int32_t node);
  // Adds a full-duplex link a<->b (two directed links, same capacity in both
  // directions); returns the id of the a->b direction.
  LinkId add_duplex_link(ComponentId a, ComponentId b, LinkKind kind, const Capacity& cap,
                         int pcie_gen = 0, int pcie_width = 0);

  // Directed link src->dst, or kNone.
  LinkId find_link(ComponentId src, ComponentId dst) const;
  // Index of a GPU component in `gpus`, or -1.
  int gpu_index(ComponentId c) const;
  // "node0/gpu3" (or just "gpu3" for a single unnamed node; "rail2" for fabric).
  std::string display_name(ComponentId c) const;

  // Model equality: components, links, nodes, fabric and defaults' entries.
  bool same_as(const Topology& other) const;
};

// Validate the structure and rebuild derived indexes. Throws InputError(file,
// 0, reason) naming the first problem: dangling ids, a PCIe parent cycle, a
// parent of the wrong kind, duplicate PCI bus ids within a node, a
// non-positive or non-finite capacity, a link without its reverse, no GPU,
// a PCIe tree deeper than kMaxTreeDepth, a string field (names, model, bus
// id, device name, CPU family) that is not UTF-8 text without control
// characters.
void finalize(Topology& t, const std::string& file);

// Put components and links into canonical order (links: see link_key in
// topology.cpp and SPEC.md "global numbering"), reassign ids, local indexes
// and names, then finalize(). Canonical order: by node, kind (enum order),
// then PCI bus id, then the previous local index, then the least bus id in
// the subtree, then depth-first tree position. Idempotent.
void canonicalize(Topology& t, const std::string& file);

}  // namespace vp
