// The GPUs a job holds, as the tools take them on the command line
// (docs/subsets.md "On the command line"):
//
//   --gpus 0-7,16,17           catalog-wide GPU indexes and ranges
//   --gpus gpu003:0-3,gpu007:5  a node by name, local GPU indexes and ranges
//   --gpus gpu003:0000:17:00.0  a node's GPU by its PCI bus id
//   --nodes gpu[003-006]        whole nodes, by hostlist
//
// Ranks follow the order given; a node's GPUs must be listed together. Any
// problem is a vp::UsageError naming the option, the item and the reason.
#pragma once

#include <string>

#include "vpcat/catalog_view.hpp"
#include "vpcat/subset.hpp"

namespace vp::cli {

// Fill `out` from --gpus (gpus) or --nodes (nodes); exactly one non-empty.
void parse_subset(const vpcat::CatalogView& cat, const std::string& gpus, const std::string& nodes,
                  vpcat::Subset& out);

// "0-7,16,17" style list of the subset's catalog GPUs (for reports).
std::string subset_gpu_list(const vpcat::Subset& s);

}  // namespace vp::cli
