// The plan as JSON (schemas/plan.schema.json): written straight into a
// string, since a 256-GPU plan holds tens of thousands of transfers.
#pragma once

#include <string>

#include "vpcat/planner.hpp"

namespace vp::plan_cli {

struct PlanReport {
  double planning_us = 0;             // wall time of Planner::plan
  vpcat::PlanOptions options;
  bool gpu_map = false;               // write "gpu_map": the catalog GPU of each rank (a subset's plan)
  // Where the planner's model came from: "catalog" (the catalog's
  // machine_model section), "default" (the class defaults), "ideal" or a
  // table file.
  std::string machine_model = "default";
};

std::string plan_json(const vpcat::Planner& planner, const vpcat::Plan& plan, const PlanReport& report);

}  // namespace vp::plan_cli
