// vp-sim --svg: the simulated timeline of one schedule. Steps follow each
// other, each as wide as its simulated time (SimResult::step_us); a GPU has a
// bar in every step in which it sends, coloured by the route class of its
// flows (the most remote class when it has several). The simulator reports
// times per step, not per transfer, so a bar spans its whole step. The cut
// lower bound is a vertical line labelled with its binding cut (the
// resource, its bytes and GB/s).
#pragma once

#include <string>

#include "vp/render/gantt.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/topology/topology.hpp"

namespace vp::render {

GanttChart timeline_chart(const Topology& t, const sim::Schedule& schedule, const sim::SimResult& result,
                          const sim::LowerBound& bound, const std::string& title);

inline std::string timeline_svg(const Topology& t, const sim::Schedule& schedule, const sim::SimResult& result,
                                const sim::LowerBound& bound, const std::string& title) {
  return gantt_svg(timeline_chart(t, schedule, result, bound, title));
}

}  // namespace vp::render
