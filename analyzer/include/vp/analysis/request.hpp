// What an analysis is asked to do: where the topology comes from, the
// cluster around it, the capacity overrides and the search options; how to
// load it; and the canonical text of the options that change the result
// (stored in the catalog's provenance so that `vp-catalog validate
// --against` can re-run the same analysis).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/analysis/local_patterns.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/topology.hpp"

namespace vp {

struct AnalysisRequest {
  std::string input;              // topology file; empty = probe this machine
  std::string input_dir;          // one HOST.xml / HOST.json per host (input_dir.hpp); empty = none
  bool probe = false;             // --probe given explicitly (same as no input)
  std::string format = "auto";    // auto, hwloc, nccl, nvidia-smi, json
  std::string cluster;            // cluster description file; empty = none
  std::string cluster_root;       // its node-type files lie under this folder; empty = its own folder
  std::uint32_t nodes = 0;        // shortcut: this many nodes of the input's type (0 = no shortcut)
  std::string fabric = "single_switch";
  std::uint32_t leaf_size = 8;
  double oversubscription = 1.0;
  // Host names of the nodes (--hostname NAME, --hosts LIST): a host list
  // naming the single node or the shortcut's nodes in order; empty = the
  // input's own (hwloc's HostName, this machine's name), else node0...
  std::string hosts;
  std::vector<std::string> sets;  // KEY=VALUE default-table overrides, in order
  std::string defaults_file;      // JSON file of overrides
  // Measurement files (nvbandwidth -j, p2pBandwidthLatencyTest): capacities
  // with source `measured` (vp/import/measured.hpp); one node type only.
  std::vector<std::string> measured;
  PatternSearchOptions search;
};

// The input, loaded: the whole topology and the cluster structure (node
// types, nodes, fabric) that the analysis exploits. A single node is a
// cluster of one node without fabric.
struct LoadedInput {
  Topology topology;
  ClusterSpec cluster;
  // The file, or "local machine"; with --cluster, the description (and the
  // --input file or "local machine" when a node type uses it).
  std::string origin;
  std::vector<std::string> notes;  // findings to show the user (hosts that differ from their group)
};

// Import, apply the overrides, expand the cluster. Throws InputError for bad
// files and UsageError for inconsistent requests.
LoadedInput load_input(const AnalysisRequest& r);

// The options that change the result, as canonical "key=value" entries
// joined by ';' in key order (overrides from --defaults files are resolved
// into set.KEY entries). File paths are not part of it.
std::string canonical_options(const AnalysisRequest& r);

// Apply canonical options text to a request (the inverse of
// canonical_options for everything but paths). Throws UsageError on an
// unknown key or a bad value.
void apply_options(AnalysisRequest& r, const std::string& text);

// A cluster topology document (vp JSON with several nodes) split back into
// node types, nodes and fabric.
ClusterSpec cluster_spec_from_topology(const Topology& t);

}  // namespace vp
