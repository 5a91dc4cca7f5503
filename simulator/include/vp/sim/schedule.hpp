// A schedule as the simulator runs it: an ordered list of steps; a step's
// flows all start together (each after the start-up latency) and the next
// step starts when every flow of the step has finished. Fan-out is one step
// holding every flow. A relayed payload is several flows in successive steps,
// each carrying its origin and final destination.
#pragma once

#include <cstdint>
#include <vector>

#include "vp/topology/routes.hpp"

namespace vp::sim {

struct Flow {
  ComponentId src = kNone, dst = kNone;        // this hop's endpoints (GPUs)
  ComponentId origin = kNone, final = kNone;   // the payload's first source and last destination
  double bytes = 0.0;
  Route route;
};

struct Step {
  std::vector<Flow> flows;
};

struct Schedule {
  std::vector<Step> steps;
};

}  // namespace vp::sim
