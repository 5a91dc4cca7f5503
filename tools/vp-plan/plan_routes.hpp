// What vp-plan --svg labels a plan with, read from the verified catalog
// itself (no topology is rebuilt, no simulator): each planner GPU's row
// label and each transfer's route class.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/render/svg.hpp"
#include "vpcat/catalog_view.hpp"
#include "vpcat/planner.hpp"

namespace vp::plan_cli {

class PlanRoutes {
 public:
  // `view` and `planner` (initialized on `view`) must outlive this object.
  // `origin` names the catalog in messages. Throws vp::InputError when a
  // node group's names do not expand (a verified catalog's always do).
  PlanRoutes(const vpcat::CatalogView& view, const vpcat::Planner& planner, const std::string& origin);

  // One label per planner GPU, in rank order: "NODE/gpuK" (the node's host
  // name and the GPU's component name) on a cluster of several nodes,
  // "GPUg" (g the catalog GPU) on one node.
  const std::vector<std::string>& gpu_labels() const { return labels_; }

  // The route class of a transfer: network when it goes through a NIC or
  // between nodes; otherwise the class of the path type between its two
  // GPUs in their node type's PCIe tree (vp::classify_chains).
  render::RouteClass route_class(const vpcat::PlanTransfer& x) const;

 private:
  const vpcat::CatalogView& view_;
  const vpcat::Planner& planner_;
  std::vector<std::string> labels_;
};

}  // namespace vp::plan_cli
