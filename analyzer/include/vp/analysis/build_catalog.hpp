// The analysis: from a loaded input to the catalog in memory (docs/design.md
// §3-§5). Per node type: symmetry, endpoint routes, maximal local patterns;
// for the cluster: nodes, fabric and its contention rule, the cluster group.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "vp/analysis/progress.hpp"
#include "vp/analysis/request.hpp"
#include "vp/catalog/catalog.hpp"

namespace vp {

// The version the analyzer (and vp-catalog resize) records in a catalog's
// provenance.
inline constexpr const char* kAnalyzerVersion = "0.1.0";

// Throws InputError(in.origin, 0, ...) for a cluster of several nodes in
// which a node has no NIC that carries GPU traffic (no NIC, or none with
// GPUDirect RDMA): a catalog of it could not move a byte between nodes.
// `vp-analyze` runs it before the analysis; build_catalog() does not, so
// that tests can build such catalogs for the runtime's refusals.
void check_nodes_reach_network(const LoadedInput& in);

// Analyse `in`. `options_text` is canonical_options() of the request, stored
// in the provenance. `progress`, when given, hears of each stage of each node
// type and of the long stages' work as it goes (progress.hpp). Throws vp::InternalError if a check of ours fails (a
// generator that is no automorphism, a pattern that is not contention-free).
catalog::Catalog build_catalog(const LoadedInput& in, const PatternSearchOptions& search,
                               const std::string& options_text, const ProgressFn& progress = {});

// The fabric capacity of each NIC port of a node type in a cluster (the
// fabric's NIC rate when it sets one, else the NIC's own); 0 for a NIC
// without GPUDirect RDMA, which carries no GPU traffic in the model.
std::vector<double> nic_port_gbps(const Topology& node_type, const ClusterSpec& cluster);

}  // namespace vp
