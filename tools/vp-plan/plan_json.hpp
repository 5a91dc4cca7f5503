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
  std::string machine_model = "default";  // where options.machine came from: "default", "ideal" or a table file
};

std::string plan_json(const vpcat::Planner& planner, const vpcat::Plan& plan, const PlanReport& report);

}  // namespace vp::plan_cli
