// vp-plan --svg: a plan as a Gantt chart. Steps follow each other on the
// time axis, each as wide as its expected duration (PlanStep::expected_us);
// a GPU's bar in a step is as long as its transfer's own expectation
// (latency + bytes at the route's solo rate; the longest one is the step's),
// coloured by route class. The shared step is hatched and labelled.
#pragma once

#include <functional>
#include <string>

#include "vp/render/gantt.hpp"
#include "vpcat/planner.hpp"

namespace vp::render {

// `route_of(transfer)` classifies a transfer (vp-plan: its path type on the
// catalog's topology; a network transfer is one with a src_nic).
// `gpu_labels` has plan.gpus() entries.
GanttChart plan_chart(const vpcat::Plan& plan, double latency_us, const std::vector<std::string>& gpu_labels,
                      const std::function<RouteClass(const vpcat::PlanTransfer&)>& route_of,
                      const std::string& title);

inline std::string plan_svg(const vpcat::Plan& plan, double latency_us, const std::vector<std::string>& gpu_labels,
                            const std::function<RouteClass(const vpcat::PlanTransfer&)>& route_of,
                            const std::string& title) {
  return gantt_svg(plan_chart(plan, latency_us, gpu_labels, route_of, title));
}

}  // namespace vp::render
