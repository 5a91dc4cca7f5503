#include "plan_routes.hpp"

#include <fmt/format.h>

#include "vp/base/errors.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/routes.hpp"

namespace vp::plan_cli {

namespace {

// The component `local` of node type `nt`, its parent, ..., its socket (local
// ids). A verified catalog's parents form a tree; the walk stops after
// component_count() steps all the same.
std::vector<std::uint32_t> ancestors(const vpcat::NodeTypeView& nt, std::uint32_t local) {
  std::vector<std::uint32_t> chain;
  for (std::uint32_t c = local; c < nt.component_count() && chain.size() < nt.component_count();
       c = nt.component(c).parent())
    chain.push_back(c);
  return chain;
}

}  // namespace

PlanRoutes::PlanRoutes(const vpcat::CatalogView& view, const vpcat::Planner& planner, const std::string& origin)
    : view_(view), planner_(planner) {
  const bool cluster = view.node_count() > 1;
  std::vector<std::string> node_names;
  if (cluster) {
    for (std::uint32_t g = 0; g < view.node_group_count(); ++g) {
      const std::vector<std::string> names = expand_hostlist(view.node_group(g).names, origin);
      node_names.insert(node_names.end(), names.begin(), names.end());
    }
    if (node_names.size() != view.node_count())
      throw InputError(origin, 0, fmt::format("the node groups' names expand to {} hosts, the catalog has {} nodes",
                                              node_names.size(), view.node_count()));
  }
  for (std::uint32_t r = 0; r < planner.gpu_count(); ++r) {
    const std::uint64_t g = planner.catalog_gpu(r);
    if (!cluster) {
      labels_.push_back(fmt::format("GPU{}", g));
      continue;
    }
    std::uint32_t node = 0, local = 0;
    view.locate_gpu(g, &node, &local);
    const vpcat::NodeTypeView nt = view.node_type(view.node(node).node_type);
    labels_.push_back(fmt::format("{}/{}", node_names[node], nt.component(nt.gpu(local)).name()));
  }
}

render::RouteClass PlanRoutes::route_class(const vpcat::PlanTransfer& x) const {
  if (x.src_nic != vpcat::kNoNic || x.src >= planner_.gpu_count() || x.dst >= planner_.gpu_count())
    return render::RouteClass::network;
  std::uint32_t src_node = 0, src_local = 0, dst_node = 0, dst_local = 0;
  view_.locate_gpu(planner_.catalog_gpu(x.src), &src_node, &src_local);
  view_.locate_gpu(planner_.catalog_gpu(x.dst), &dst_node, &dst_local);
  if (src_node != dst_node) return render::RouteClass::network;
  const vpcat::NodeTypeView nt = view_.node_type(view_.node(src_node).node_type);
  return render::route_class(classify_chains(ancestors(nt, nt.gpu(src_local)), ancestors(nt, nt.gpu(dst_local)),
                                             [&](std::uint32_t c) { return nt.component(c).kind(); }));
}

}  // namespace vp::plan_cli
