// The simulator tests' fixture platforms and the suite's demands on them,
// shared by the bound tests (sim_bound_test.cpp, sim_flow_bound_test.cpp).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vp/sim/demand.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim::test {

// The fixture platforms (fixtures/platforms/): each node type alone, each
// 4-node cluster file, and the suite's server on small rail and leaf/spine
// fabrics (the 16- and 32-node files have the same shapes, too big to
// simulate here under ASan). Built once.
const std::map<std::string, Topology>& fixture_platforms();

// uniform (1 MB per pair), hotspot (a third of the GPUs hot) and MoE
// dispatch (Zipf 1.2, 256 tokens per GPU) demands on n GPUs.
std::vector<std::pair<std::string, Demand>> suite_demands(std::size_t n);

}  // namespace vp::sim::test
