// The plan as JSON (schemas/plan.schema.json): written straight into a
// string, since a 256-GPU plan holds tens of thousands of transfers.
#pragma once

#include <string>

#include "vpcat/planner.hpp"

namespace vp::plan_cli {

struct PlanReport {
  double planning_us = 0;             // wall time of Planner::plan
  vpcat::PlanOptions options;
};

std::string plan_json(const vpcat::Planner& planner, const vpcat::Plan& plan, const PlanReport& report);

}  // namespace vp::plan_cli
