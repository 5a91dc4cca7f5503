// The automorphism group of a node type (docs/design.md §4), computed with bliss.
//
// The node's components become vertices coloured by kind and every attribute
// that matters for performance (model, forwarding capacity, NIC rate and
// GPUDirect, CPU family); every directed link becomes a vertex coloured by
// its kind, capacity and direction in the PCIe tree, joined src -> link ->
// dst. Bus ids, names and indexes do not count. bliss's generators, projected
// on the components, are then checked twice: as automorphisms of the model
// (kinds, attributes, links and capacities) and as commuting with routing
// (the image of every endpoint route is the route between the images).
#pragma once

#include <string>
#include <vector>

#include "vp/analysis/deadline.hpp"
#include "vp/analysis/perm_group.hpp"
#include "vp/topology/topology.hpp"

namespace vp {

struct NodeSymmetry {
  std::vector<Permutation> generators;       // on the node's component ids
  std::vector<Permutation> link_generators;  // the same, acting on link ids
  BigUint order;
  std::vector<std::uint32_t> component_orbit;  // smallest component id of each orbit
  std::vector<std::uint32_t> link_orbit;       // smallest link id of each orbit
};

// Aut of a single-node topology (t.nodes.size() == 1). Throws
// vp::InternalError if a generator fails either check (a bug, or a topology
// whose routing breaks its own symmetry; the message names the generator and
// what it breaks), and AnalysisTimeout when the checks pass `deadline`
// (looked at before each generator's; bliss itself is not interrupted).
NodeSymmetry compute_node_symmetry(const Topology& t,
                                   AnalysisClock::time_point deadline = AnalysisClock::time_point::max());

// The permutation a component permutation induces on links; kNone entries if
// some link has no image (then it is no automorphism).
Permutation induced_link_permutation(const Topology& t, const Permutation& p);

// The coloured digraph bliss sees: vertices are the components (ids
// 0..C-1), then the directed links (C + link id); callers may append vertices
// (a pattern's roles) before running bliss.
struct ColouredDigraph {
  std::vector<std::string> colour;  // per vertex
  std::vector<std::pair<unsigned, unsigned>> edges;
  unsigned add_vertex(std::string c) {
    colour.push_back(std::move(c));
    return static_cast<unsigned>(colour.size() - 1);
  }
};
ColouredDigraph symmetry_graph(const Topology& t);

struct BlissResult {
  std::vector<Permutation> generators;  // projected on the first `keep` vertices
  std::string certificate;              // canonical form, when asked for
};
BlissResult run_bliss(const ColouredDigraph& g, std::size_t keep, bool canonical);

// Empty string if `p` is an automorphism of the model, else why not.
std::string automorphism_violation(const Topology& t, const Permutation& p);
// Empty string if `p` maps every route between endpoints (GPUs, NICs) onto
// the route between their images, else the first counterexample.
std::string routing_violation(const Topology& t, const Permutation& p);

}  // namespace vp
