// The placements `vp-catalog place` weighs for an N-GPU job on a cluster's
// free GPUs: a handful of sensible ones, never an enumeration. Nodes first,
// then GPUs inside each node:
//
// * fewest nodes: the freest nodes whole, the last one by best fit (the
//   node with the fewest free GPUs that still holds the rest);
// * partial nodes first: the free GPUs of nodes already in use, whole, then
//   as fewest nodes (closes partial nodes instead of opening new ones);
// * one leaf (leaf/spine fabrics): fewest nodes inside the leaf with the
//   fewest free GPUs that holds the job, so no byte crosses the spine;
// * balanced over k nodes, k = the fewest nodes' count doubling up to N (and
//   to the nodes with free GPUs): N/k GPUs per node on the k nodes that fit
//   them best (fewest free GPUs) and, apart, on the k freest.
//
// On a node that gives part of its free GPUs, two choices: spread (one GPU
// per NIC's group before a second: the GPUs nearest each NIC, by route rate)
// and packed (whole NIC groups first). The candidates are deduplicated by
// their GPU sets; at most about 4 (log2 N + 3) of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "free_gpus.hpp"
#include "vpcat/catalog_view.hpp"

namespace vp::catalog_cli {

struct Candidate {
  std::string strategy;            // "fewest nodes, spread", "one leaf (leaf 2), packed", ...
  std::vector<std::uint64_t> gpus; // catalog GPUs, node by node, ascending
};

// Requires 0 < n <= free.total.
std::vector<Candidate> placement_candidates(const vpcat::CatalogView& view, const FreeGpus& free, std::uint32_t n);

// `free` without the GPUs of `taken`.
FreeGpus without(const vpcat::CatalogView& view, const FreeGpus& free, const std::vector<std::uint64_t>& taken);

}  // namespace vp::catalog_cli
