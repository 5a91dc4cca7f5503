// How fast a job's AlltoAllv runs on a placement, as `vp-catalog score` and
// `vp-catalog place` judge it (docs/subsets.md "Scoring placements"): the
// judge's lower bound of the demand on those GPUs with the rest of the
// cluster idle (vp::sim::lower_bound, the cut that binds), and the subset
// planner's plan simulated by the judge (ideal model) beside the planner's
// own expected time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vp/topology/topology.hpp"
#include "vpcat/planner.hpp"

namespace vp::catalog_cli {

struct PlacementScore {
  std::uint32_t gpu_count = 0, node_count = 0;
  double bound_us = 0, planned_us = 0, expected_us = 0;
  std::string cut;  // the bound's binding cut
  std::size_t steps = 0;
};

// Score `subset` of the catalog `view` (whose judge's topology is `topo`,
// vp::sim::catalog_topology) for `demand` (dense, subset.gpu_count() squared,
// in rank order). The planner's refusal of the subset is an InputError
// naming `catalog_file`; its refusal of the demand goes to `refused`, which
// must throw.
PlacementScore score_placement(const vpcat::CatalogView& view, const Topology& topo, const vpcat::Subset& subset,
                               const std::vector<std::uint64_t>& demand, double latency_us,
                               const std::string& catalog_file,
                               const std::function<void(const vpcat::PlanStatus&)>& refused);

}  // namespace vp::catalog_cli
