// The fluid problem of one step, as simulate() builds it: flows merged into
// transfers, resources numbered, the contention model's degradation and
// ports set. Internal; tests check the engines on real steps through it.
#pragma once

#include "fluid.hpp"
#include "vp/sim/contention.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim::detail {

FluidProblem step_problem(const Topology& t, const Step& step, const ContentionModel& m);

}  // namespace vp::sim::detail
