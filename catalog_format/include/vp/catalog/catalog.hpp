// The catalog in memory: what the analyzer computes and the format stores
// (docs/design.md §3-§5). The binary .vpcat and its JSON mirror hold exactly this
// information; catalog_format/SPEC.md defines their bytes.
//
// A catalog is hierarchical. For each node type it holds the node's
// topology, its endpoint route table, its automorphism group (generators,
// order, orbits) and one representative per orbit of maximal local patterns.
// For the cluster it holds the node list, the fabric and the fabric's
// contention rule. Whole-cluster channels are never stored: a cluster channel
// is a fabric-feasible set of NIC-to-NIC flows plus one local pattern per node.
//
// Numbering. Inside a node type, components and links are numbered as in the
// canonical single-node Topology (vp::canonicalize). In the cluster, node i's
// components and internal links are those of its type shifted by the sums of
// the previous nodes' counts; the fabric's components and links follow in the
// order SPEC.md "global numbering" fixes, so that the cluster's numbering is
// computed, not stored, and equals `vp-analyze topology --json`'s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vpcat/format.hpp"

namespace vp::catalog {

// The runtime's kinds (vpcat/format.hpp), the one set: vp::ComponentKind,
// vp::LinkKind and vp::FabricKind are the same types.
using Kind = vpcat::ComponentKind;
using LinkKind = vpcat::LinkKind;
using FabricKind = vpcat::FabricKind;

inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;

struct Component {
  Kind kind = Kind::gpu;
  std::uint32_t parent = kNone;  // local id, kNone for sockets
  std::uint32_t local_index = 0; // among the node's components of this kind
  std::string name;              // "gpu3"
  std::string model;
  std::string pci_bus_id;
  std::string device_name;
  double forward_gbps = 0.0;     // 0 = no forwarding limit
  double nic_gbps = 0.0;         // nic: capacity of its network port(s) on the fabric, per direction
  bool gpudirect = false;        // nic: GPUDirect RDMA capable
  friend bool operator==(const Component&, const Component&) = default;
};

struct Link {
  std::uint32_t src = kNone, dst = kNone;  // local component ids
  LinkKind kind = LinkKind::pcie;
  double capacity_gbps = 0.0;
  std::uint32_t reverse = kNone;           // local link id of the opposite direction
  friend bool operator==(const Link&, const Link&) = default;
};

// A local route between two endpoints (GPU or NIC) of one node. Routes
// between every ordered pair of distinct endpoints are stored.
struct Route {
  std::uint32_t from = kNone, to = kNone;   // local component ids
  double solo_gbps = 0.0;                   // min over links and forwarders (and the NIC port for a NIC end)
  std::vector<std::uint32_t> links;         // local link ids in order
  std::vector<std::uint32_t> forwarders;    // local component ids
  friend bool operator==(const Route&, const Route&) = default;
};

// Role encoding inside a local pattern, per local GPU index g (0..G-1):
//   kIdle, a local GPU index 0..G-1 (peer-to-peer partner), or
//   kNicBase + k (to/from the network through local NIC index k).
inline constexpr std::int32_t kIdle = -1;
inline constexpr std::int32_t kNicBase = 1 << 16;

// One maximal local pattern: what every GPU of the node sends and receives.
struct LocalPattern {
  std::vector<std::int32_t> send;  // size G
  std::vector<std::int32_t> recv;  // size G
  std::uint64_t orbit_size = 0;    // patterns in its orbit = |Aut| / |Stab|
  friend bool operator==(const LocalPattern&, const LocalPattern&) = default;
};

struct NodeType {
  std::string name;
  std::vector<Component> components;
  std::vector<Link> links;          // internal links only (no fabric links)
  std::vector<Route> routes;        // every ordered pair of distinct endpoints, sorted by (from, to)
  // Symmetry: generators as permutations of local component ids; every
  // generator maps links to links (checked) and routes to routes (checked).
  std::vector<std::vector<std::uint32_t>> generators;
  std::string group_order;                    // exact, decimal
  std::vector<std::uint32_t> component_orbit; // per component: smallest id in its orbit
  std::vector<std::uint32_t> link_orbit;      // per link: smallest id in its orbit
  // Maximal local patterns, one representative per orbit (the lexicographic
  // minimum of its orbit), in lexicographic order.
  std::vector<LocalPattern> patterns;
  std::string patterns_represented;           // sum of orbit sizes, decimal
  // False when the search stopped at its budget: `patterns` is then a subset
  // of the orbits (each still maximal and contention-free).
  bool patterns_complete = true;
  friend bool operator==(const NodeType&, const NodeType&) = default;
};

// Nodes of one type with names given as a hostlist expression
// ("gpu[001-032]"); groups appear in node order.
struct NodeGroup {
  std::uint32_t node_type = 0;
  std::uint32_t count = 0;
  std::string names;  // hostlist expression expanding to `count` names
  friend bool operator==(const NodeGroup&, const NodeGroup&) = default;
};

// The fabric and its contention rule. Every NIC-to-NIC flow goes NIC -> its
// switch -> (spine, when the two switches differ) -> switch -> NIC. With
// `spine_uplink_gbps` per non-spine switch (0 = no spine), a set of flows at
// their solo rates is contention-free iff every NIC sends and receives at
// most one flow and, for every switch, the flows crossing its spine uplink in
// each direction fit its capacity. That rule is exact for the fabrics we
// model (docs/design.md §3 "fabric patterns"); the analyzer checks it.
struct Fabric {
  FabricKind kind = FabricKind::none;
  std::uint32_t leaf_size = 0;
  double oversubscription = 1.0;
  std::uint32_t switches = 0;                 // non-spine switches (rails, leaves, or the one switch)
  bool spine = false;
  std::vector<double> spine_uplink_gbps;      // per non-spine switch
  std::string group_description;             // "S32 (any permutation of the 32 nodes)"
  std::string group_order;                   // order of the fabric's group acting on nodes, decimal
  friend bool operator==(const Fabric&, const Fabric&) = default;
};

struct Provenance {
  std::string tool = "vp-analyze";
  std::string tool_version;
  std::string input_digest;   // "sha256:<hex>" over the normalized input topology JSON
  std::string options;        // the options that change the result, canonical text
  // What the import assumed (warnings, one per line, no trailing newline);
  // empty when nothing was. Format 1.1; a 1.0 file reads as empty.
  std::string warnings;
  friend bool operator==(const Provenance&, const Provenance&) = default;
};

// The machine model (format 1.2, SPEC.md §6.13): what sharing a resource
// costs on this machine, the planner's vpcat::MachineModel with where each
// value comes from ("class default: ...", "table FILE", "measured: ...").
// One model for the whole catalog: the forwarder families already tell CPU
// models (node types) apart.
struct ModelValue {
  double value = 0.0;
  std::string source;
  friend bool operator==(const ModelValue&, const ModelValue&) = default;
};
struct ModelCurve {  // eta(k) = max(floor, 1 / (1 + slope (k - 1)))
  bool on = false;
  ModelValue slope, floor;
  friend bool operator==(const ModelCurve&, const ModelCurve&) = default;
};
struct ModelFamily {  // the forwarder curve of the sockets whose CPU model contains `match`
  std::string match;
  ModelValue slope, floor;
  friend bool operator==(const ModelFamily&, const ModelFamily&) = default;
};
struct MachineModelSpec {
  ModelCurve forwarder;
  std::vector<ModelFamily> families;  // first match wins; their switch is the forwarder's
  ModelCurve nic;
  bool chunk_on = false;
  ModelValue chunk_bytes, chunk_overhead_us;
  friend bool operator==(const MachineModelSpec&, const MachineModelSpec&) = default;
};

struct Catalog {
  std::vector<NodeType> node_types;
  std::vector<NodeGroup> node_groups;
  Fabric fabric;
  std::vector<std::pair<std::string, double>> defaults;  // the capacity table used, by key
  std::string cluster_group_order;  // |fabric group| x prod |Aut(node type)|^count, decimal
  Provenance provenance;
  // Absent from 1.0 and 1.1 files (the planner then takes the class
  // defaults); the analyzer always writes one.
  std::optional<MachineModelSpec> machine_model;
  friend bool operator==(const Catalog&, const Catalog&) = default;
};

}  // namespace vp::catalog
