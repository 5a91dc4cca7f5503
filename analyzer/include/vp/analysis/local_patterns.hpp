// Maximal local patterns of a node type (docs/design.md §3), one per orbit of the
// node's automorphism group.
//
// A local pattern gives every GPU a send role (idle, peer-to-peer to a local
// GPU, or to the network through NIC k) and a receive role (idle, from a
// local GPU, or from the network through NIC k). It is contention-free when
// its flows, each at its route's solo rate, fit every link, every forwarding
// component and every NIC port (one direction each, at the NIC's fabric
// rate); it is maximal when no idle role can become active.
//
// The search is orderly generation: roles are decided position by position
// (all send roles, then the receive roles left free) in increasing role
// order, and a partial assignment is cut as soon as some group element maps
// it to a lexicographically smaller one (lex-leader). With the whole group
// at hand, exactly the lexicographically least member of every orbit
// survives, so no orbit is found twice and nothing is deduplicated after the
// fact. Groups too large to list are cut with the listed elements only and
// the surviving maximal patterns are deduplicated by bliss canonical
// certificates.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vp/analysis/contention.hpp"
#include "vp/analysis/deadline.hpp"
#include "vp/analysis/perm_group.hpp"
#include "vp/analysis/symmetry.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/catalog.hpp"
#include "vp/topology/topology.hpp"

namespace vp {

struct PatternSearchOptions {
  // List the whole group for lex-leader cuts when its order is at most this.
  std::uint64_t max_listed_group = 1000000;
  // Stop after this many search nodes (the result is then marked incomplete).
  std::uint64_t max_search_nodes = 20000000;
  // Give up with AnalysisTimeout once this time has passed (vp-analyze
  // --max-analysis-seconds, deadline.hpp). A refusal, never a different
  // result: the budget above counts search nodes, not the group work at each,
  // so a node type within every size limit can still take hours; this bounds
  // the wall time. build_catalog() gives the symmetry computation the same one.
  AnalysisClock::time_point deadline = AnalysisClock::time_point::max();
  // Called every 4,096 search nodes with the nodes searched and the pattern
  // orbits found so far (progress reports; never changes the result).
  std::function<void(std::uint64_t search_nodes, std::uint64_t orbits_found)> on_progress;
};

struct LocalPatternSet {
  std::vector<catalog::LocalPattern> representatives;  // lexicographic order
  BigUint represented;                                 // sum of orbit sizes
  bool complete = true;
  std::uint64_t search_nodes = 0;
};

// The node with its network ports: one extra net_switch ("port") and, for
// every NIC k with nic_gbps[k] > 0, a network link each way with that
// capacity (a NIC without a port carries no GPU traffic). Network
// roles of a pattern are flows GPU -> NIC -> port and port -> NIC -> GPU in
// this topology, so that check_contention() sees the NIC ports too.
Topology with_network_ports(const Topology& node, const std::vector<double>& nic_gbps);

// Patterns of `ported` (from with_network_ports); `sym` is the node type's
// group (its permutations fix the port switch).
LocalPatternSet find_local_patterns(const Topology& ported, const NodeSymmetry& sym,
                                    const PatternSearchOptions& opts = {});

// Every maximal local pattern, without symmetry (for tests: small nodes only).
std::vector<catalog::LocalPattern> all_maximal_local_patterns(const Topology& ported);

// The image of a pattern under a component permutation of the node.
catalog::LocalPattern apply_to_pattern(const Topology& ported, const Permutation& p, const catalog::LocalPattern& x);

// The canonical form of a pattern of `ported` under the node's automorphism
// group (bliss on the node's coloured digraph with the pattern's roles as
// extra vertices): two patterns are in one orbit exactly when their
// certificates are equal. Also the generators of the pattern's stabilizer,
// projected on the components.
struct PatternCanonicalForm {
  std::string certificate;
  std::vector<Permutation> stabilizer;
};
PatternCanonicalForm canonical_pattern(const Topology& ported, const catalog::LocalPattern& x);

// The transfers of a pattern in `ported`: GPU -> GPU, GPU -> port (send to
// the network through NIC k), port -> GPU (receive through NIC k).
std::vector<Transfer> pattern_transfers(const Topology& ported, const catalog::LocalPattern& x);

}  // namespace vp
