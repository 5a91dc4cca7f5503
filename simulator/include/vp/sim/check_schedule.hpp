// Does a schedule deliver a demand? Every off-diagonal byte D[o][f] must
// reach GPU f exactly once, and a GPU may only send a payload (o, f) it
// holds: its own bytes from the start, relayed bytes from the step after
// they arrived. For the baselines' tests and for any planner's.
#pragma once

#include <string>

#include "vp/sim/demand.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

struct ScheduleCheck {
  bool ok = true;
  std::string message;  // the first violation, e.g. "step 2: node1/gpu3 sends 4096 bytes of gpu0 -> node1/gpu5 it does not hold (holds 0)"
};

// Compares byte counts with a relative slack of `rel_tol` (of the payload's
// demand). Flows must have GPU endpoints (as simulate() requires).
ScheduleCheck check_schedule(const Topology& t, const Demand& demand, const Schedule& schedule, double rel_tol = 1e-9);

}  // namespace vp::sim
