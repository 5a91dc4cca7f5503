// Clusters: node types, nodes and the fabric (docs/design.md §2 "cluster").
//
// A cluster description (JSON, schemas/cluster.schema.json) names the node
// types (each a topology file, or the main --input), how many nodes of each
// (with host names as hostlist ranges such as "gpu[001-032]"), and the fabric:
// a single non-blocking switch, rail-optimized (NIC k of every node on rail
// switch k, rails joined by a spine), or leaf/spine with a leaf size and an
// oversubscription ratio. expand_cluster() turns it into one Topology.
//
// Fabric model: spines are aggregated into one logical `spine` net_switch
// whose links carry the total uplink capacity (ideal ECMP spreading), so that
// routes are unique and commute with the fabric's symmetry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vp/topology/topology.hpp"
#include "vpcat/hostlist.hpp"

namespace vp {

struct NodeTypeSpec {
  std::string name;
  Topology topology;  // single node
  std::string input_file;  // the file a description named for it ("" when it took --input or is built in)
};

struct ClusterSpec {
  std::vector<NodeTypeSpec> node_types;
  std::vector<NodeInfo> nodes;  // in cluster order; type names refer to node_types
  FabricInfo fabric;
  // Per-port NIC line rate on the fabric in Gb/s; 0 = each NIC's own rate.
  double nic_gbitps = 0.0;
};

// The size of what vp-analyze accepts, each with a default beyond any machine
// or cluster built so far (vp-analyze --max-*, docs/importers.md "Limits").
// Process-wide: the tool sets them from its command line before it reads.
struct AnalysisLimits {
  // Components of an expanded cluster, about 1 KB of memory each: 2^21, e.g.
  // 65,536 nodes of 32 components (--max-components).
  std::uint64_t max_components = std::uint64_t{1} << 21;
  // Nodes of a cluster (--max-nodes): 32,768 nodes of 8 GPUs are 262,144 GPUs.
  std::uint64_t max_nodes = 32768;
  // GPUs and NICs of one node type (--max-node-gpus, --max-node-nics): the
  // largest PCIe servers hold 20 GPUs; hwloc lists 64 NICs on an AWS p5
  // (fixtures/real/hwloc-xml/nixl-p5.48xl-topo.xml). The analysis of a node
  // grows steeply with its symmetric parts (measured here, two GPUs to a
  // switch: 32 GPUs 4 s, 64 GPUs 6 min; 8 GPUs with 16 NICs on each of 4
  // switches over 10 min): these counts stop the absurd, not every slow case.
  std::uint64_t max_node_gpus = 32;
  std::uint64_t max_node_nics = 128;
};

// The limits in force (the defaults until a tool changes them).
AnalysisLimits& analysis_limits();

// Why a cluster of `nodes` nodes and `components` components in all exceeds
// analysis_limits(), or "" when it does not. Checked before anything that
// size is allocated (load_cluster_spec, expand_cluster, vp-analyze --nodes).
std::string cluster_size_violation(std::uint64_t nodes, std::uint64_t components);

// Why node type `name` (its topology `node`) exceeds analysis_limits(), or "".
std::string node_type_violation(const std::string& name, const Topology& node);

// The most host names a host list or a cluster expands to.
inline constexpr std::size_t kMaxHosts = 1'000'000;

// Expand "gpu[001-004,010]" / "a[1-2]b[1-2]" / "n1,n2" into host names (the
// runtime's grammar and parser, vpcat/hostlist.hpp, SPEC.md §6.8).
// Throws InputError(origin, 0, reason) on malformed ranges or more than
// 1,000,000 names.
std::vector<std::string> expand_hostlist(std::string_view expr, const std::string& origin);

// Whether `name` is a host name as host lists and catalogs take them: not
// empty, letters, digits, '-', '.' and '_' only (vpcat/hostlist.hpp).
using vpcat::is_host_name;

// The command-line shortcut: `count` nodes of `node_type`, named node0..,
// on a fabric of `kind` (leaf_size / oversubscription for leaf_spine).
ClusterSpec cluster_from_shortcut(const Topology& node_type, std::uint32_t count, FabricKind kind,
                                  std::uint32_t leaf_size, double oversubscription);

// Throws InputError(origin, 0, reason) on a description expand_cluster()
// cannot build (shared by the description reader, vp/import/cluster_spec.hpp).
void check_cluster_spec(const ClusterSpec& spec, const std::string& origin);

// The whole cluster as one canonical, finalized Topology.
Topology expand_cluster(const ClusterSpec& spec);

}  // namespace vp
